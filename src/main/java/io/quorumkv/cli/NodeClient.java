package io.quorumkv.cli;

import io.quorumkv.web.ClientTls;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The admin command's requests. {@link #send} asks the first of the urls that can be reached and
 * moves on to the next only when one cannot be (a node down is what fail-over is for; a wrong
 * token or CA would be wrong everywhere). Any answer but the expected one is an
 * {@link AdminFailure} of one line.
 */
final class NodeClient {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  private static final int ERROR_BODY_BYTES = 4096;

  private final HttpClient http;
  private final List<URI> urls;
  private final String token;

  NodeClient(AdminOptions options) {
    this.urls = options.urls();
    this.token = options.token();
    this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).version(HttpClient.Version.HTTP_1_1)
        .sslContext(options.tls().sslContext()).build();
  }

  /** An answer: the node that gave it, its status and body. */
  record Answer(URI node, int status, String body) {
    JsonObject json() {
      try {
        return new JsonObject(body);
      } catch (DecodeException | ClassCastException e) {
        throw new AdminFailure(node + " answered no JSON object: is it a quorumkv node?");
      }
    }

    JsonArray jsonArray() {
      try {
        return new JsonArray(body);
      } catch (DecodeException | ClassCastException e) {
        throw new AdminFailure(node + " answered no JSON list: is it a quorumkv node?");
      }
    }
  }

  /** A request to the first node that can be reached; fails unless its status is {@code expected}. */
  Answer send(String method, String pathAndQuery, Duration timeout, int... expected) {
    return sendToAny(urls, method, pathAndQuery, timeout, expected);
  }

  /** {@link #send} over these nodes rather than the urls given. */
  Answer sendToAny(List<URI> nodes, String method, String pathAndQuery, Duration timeout, int... expected) {
    return firstReachable(nodes, node -> expect(exchange(node, method, pathAndQuery, timeout), expected));
  }

  /** What {@code attempt} gives for the first of the nodes that can be reached: fail-over, and only for that. */
  private static <T> T firstReachable(List<URI> nodes, Function<URI, T> attempt) {
    AdminFailure unreachable = new AdminFailure("no node to ask");
    for (URI node : nodes) {
      try {
        return attempt.apply(node);
      } catch (Unreachable e) {
        unreachable = new AdminFailure(e.getMessage() + (nodes.size() > 1 ? " (tried " + nodes.size() + " urls)" : ""));
      } catch (Unanswered e) {
        throw new AdminFailure(e.getMessage());
      }
    }
    throw unreachable;
  }

  /** A request to this node only. */
  Answer sendTo(URI node, String method, String pathAndQuery, Duration timeout, int... expected) {
    try {
      return expect(exchange(node, method, pathAndQuery, timeout), expected);
    } catch (Unreachable | Unanswered e) {
      throw new AdminFailure(e.getMessage());
    }
  }

  /**
   * An answer whose body is streamed: the caller reads it and closes it. {@code timeout} bounds the
   * wait for the status line only; a body that stalls is the reader's to bound.
   */
  record Download(URI node, int status, HttpHeaders headers, InputStream body) implements AutoCloseable {
    @Override
    public void close() {
      try {
        body.close();
      } catch (IOException ignored) {
        // the connection is given up either way
      }
    }
  }

  /** {@code GET} of a body to stream, from the first node that can be reached. */
  Download download(String pathAndQuery, Duration timeout, int... expected) {
    return firstReachable(urls, node -> streamed(node, pathAndQuery, timeout, List.of(), expected));
  }

  /** {@code GET} of a body to stream from this node, with these headers (name, value, name, value...). */
  Download downloadFrom(URI node, String pathAndQuery, Duration timeout, List<String> headers, int... expected) {
    try {
      return streamed(node, pathAndQuery, timeout, headers, expected);
    } catch (Unreachable | Unanswered e) {
      throw new AdminFailure(e.getMessage());
    }
  }

  private Download streamed(URI node, String pathAndQuery, Duration timeout, List<String> headers, int... expected) {
    HttpResponse<InputStream> response = exchange(node, "GET", pathAndQuery, timeout, headers,
        HttpResponse.BodyHandlers.ofInputStream());
    Download download = new Download(node, response.statusCode(), response.headers(), response.body());
    for (int status : expected) {
      if (response.statusCode() == status) {
        return download;
      }
    }
    String text;
    try (download) {
      text = new String(download.body().readNBytes(ERROR_BODY_BYTES), StandardCharsets.UTF_8);
    } catch (IOException e) {
      text = "";
    }
    throw new AdminFailure(ExchangeFailures.describe(node, response.statusCode(), text));
  }

  /** {@link #sendTo}, or null when the node cannot be reached at all: a node down, which a command over every node reports. */
  Answer sendToIfReachable(URI node, String method, String pathAndQuery, Duration timeout, int... expected) {
    try {
      return expect(exchange(node, method, pathAndQuery, timeout), expected);
    } catch (Unreachable e) {
      return null;
    } catch (Unanswered e) {
      throw new AdminFailure(e.getMessage());
    }
  }

  /**
   * A {@code GET} of this node, or null when it cannot be reached or does not answer within
   * {@code timeout}: a node down, which a view of every node shows rather than fails on. Any other
   * failure, a refused token say, is an {@link AdminFailure} as ever.
   */
  Answer getIfAnswering(URI node, String pathAndQuery, Duration timeout) {
    try {
      return expect(exchange(node, "GET", pathAndQuery, timeout), 200);
    } catch (Unreachable | Unanswered e) {
      return null;
    }
  }

  /** {@code GET} of a JSON object from the first node that can be reached. */
  JsonObject getJson(String pathAndQuery) {
    return send("GET", pathAndQuery, DEFAULT_TIMEOUT, 200).json();
  }

  List<URI> urls() {
    return urls;
  }

  private Answer exchange(URI node, String method, String pathAndQuery, Duration timeout) {
    HttpResponse<String> response = exchange(node, method, pathAndQuery, timeout, List.of(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(node, response.statusCode(), response.body());
  }

  private <T> HttpResponse<T> exchange(URI node, String method, String pathAndQuery, Duration timeout,
                                       List<String> headers, HttpResponse.BodyHandler<T> body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node + pathAndQuery)).timeout(timeout)
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    for (int i = 0; i + 1 < headers.size(); i += 2) {
      request.header(headers.get(i), headers.get(i + 1));
    }
    try {
      return http.send(request.build(), body);
    } catch (ConnectException | HttpConnectTimeoutException e) {
      throw new Unreachable(ExchangeFailures.describe(node, e));
    } catch (HttpTimeoutException e) {
      throw new Unanswered(ExchangeFailures.describe(node, e));
    } catch (IOException e) {
      throw new AdminFailure(ExchangeFailures.describe(node, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminFailure("interrupted");
    }
  }

  private static Answer expect(Answer answer, int... expected) {
    for (int status : expected) {
      if (answer.status() == status) {
        return answer;
      }
    }
    throw new AdminFailure(ExchangeFailures.describe(answer.node(), answer.status(), answer.body()));
  }

  /** A node that could not be reached at all: the next url may do. */
  private static final class Unreachable extends RuntimeException {
    Unreachable(String line) {
      super(line, null, false, false);
    }
  }

  /** A node that took the request and did not answer in time: not asked again elsewhere, the request may have run. */
  private static final class Unanswered extends RuntimeException {
    Unanswered(String line) {
      super(line, null, false, false);
    }
  }
}
