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
import io.quorumkv.web.ClientFailures;
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

  /**
   * The node's {@code GET /admin/restore} (admin token): that the url is a quorumkv node this token may
   * restore into, and its cluster. A {@link BackupException} says in one line why not: not reachable
   * (or over the wrong scheme, or a certificate not trusted), 401 or 403, or not a quorumkv node.
   */
  JsonObject describe() {
    HttpResponse<String> response = sendBlocking(request(RestoreProtocol.PATH).timeout(DESCRIBE_TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString(), null);
    int status = response.statusCode();
    if (status == 401 || status == 403) {
      throw new BackupException(node + " refused the restore: " + ClientFailures.answer(status, response.body()));
    }
    JsonObject about = null;
    try {
      about = status == 200 ? new JsonObject(response.body()) : null;
    } catch (DecodeException e) {
      // answered below
    }
    if (about == null || about.getJsonObject("topology") == null || about.getString("node") == null) {
      throw new BackupException(node + " is not a quorumkv node this tool can restore into: GET "
          + RestoreProtocol.PATH + " answered " + (status == 200 ? "200 without its JSON"
          : ClientFailures.answer(status, response.body())));
    }
    return about;
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

  /**
   * Sends and waits; a {@link BackupException} saying why no answer came ({@link ClientFailures}), after
   * {@code failing} when given.
   */
  private <T> HttpResponse<T> sendBlocking(HttpRequest request, HttpResponse.BodyHandler<T> body, String failing) {
    try {
      return http.send(request, body);
    } catch (IOException e) {
      String why = ClientFailures.describe(node, e);
      throw new BackupException(failing == null ? why : failing + ": " + why);
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
