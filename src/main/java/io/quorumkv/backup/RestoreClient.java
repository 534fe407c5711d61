package io.quorumkv.backup;

import io.quorumkv.web.QueryParams;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import io.quorumkv.web.ClientTls;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/** The restore tool's side of {@link RestoreProtocol}, to one node of the cluster. */
final class RestoreClient {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /** A batch waits for every replica of its records: a few replica timeouts at most. */
  private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration DESCRIBE_TIMEOUT = Duration.ofSeconds(10);

  private final HttpClient http;
  private final URI node;
  private final String token;

  RestoreClient(URI node, String token, ClientTls tls) {
    this.node = node;
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).version(HttpClient.Version.HTTP_1_1)
        .sslContext(tls.sslContext()).build();
  }

  /** The node's {@code GET /admin/restore}; a {@link BackupException} saying why it cannot be had (not reachable, 401, 403). */
  JsonObject describe() {
    HttpResponse<String> response = sendBlocking(request(RestoreProtocol.PATH).timeout(DESCRIBE_TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString(), "cannot reach " + node);
    if (response.statusCode() != 200) {
      throw new BackupException(node + " refused the restore: " + response.statusCode() + " "
          + response.body().strip());
    }
    try {
      return new JsonObject(response.body());
    } catch (DecodeException e) {
      throw new BackupException(node + " is not a quorumkv node of this version (its " + RestoreProtocol.PATH
          + " answers no JSON)");
    }
  }

  /** Sends a batch; completes with the node's tally, or fails when it gave none. */
  CompletableFuture<JsonObject> send(byte[] body, boolean fresh) {
    HttpRequest request = request(RestoreProtocol.PATH + "?" + RestoreProtocol.VERSIONS + "="
        + (fresh ? RestoreProtocol.FRESH : RestoreProtocol.KEEP))
        .timeout(BATCH_TIMEOUT)
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
      if (response.statusCode() != 200) {
        throw new IllegalStateException(response.statusCode() + " " + response.body().strip());
      }
      return new JsonObject(response.body());
    });
  }

  /** The cluster's live keys in {@code [start, end)}, read as they are consumed. Close the stream. */
  Stream<byte[]> liveKeys(byte[] start, byte[] end) {
    String query = "?" + QueryParams.rangeQuery(start, end);
    HttpResponse<Stream<String>> response = sendBlocking(request(RestoreProtocol.KEYS_PATH + query).GET().build(),
        HttpResponse.BodyHandlers.ofLines(), "cannot list the cluster's keys through " + node);
    if (response.statusCode() != 200) {
      String body = String.join(" ", response.body().toList()).strip();
      throw new BackupException("cannot list the cluster's keys through " + node + ": " + response.statusCode() + " "
          + body);
    }
    return response.body().map(line -> URLDecoder.decode(line, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
  }

  /** Sends and waits; a {@link BackupException} beginning with {@code failing} when no answer came. */
  private <T> HttpResponse<T> sendBlocking(HttpRequest request, HttpResponse.BodyHandler<T> body, String failing) {
    try {
      return http.send(request, body);
    } catch (IOException e) {
      throw new BackupException(failing + ": " + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BackupException("interrupted");
    }
  }

  private HttpRequest.Builder request(String pathAndQuery) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(node + pathAndQuery));
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  static String describe(Throwable e) {
    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : " " + message);
  }
}
