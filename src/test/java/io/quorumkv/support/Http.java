package io.quorumkv.support;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A blocking HTTP/1.1 client for tests, talking to one node. */
public final class Http {
  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  private final String base;
  private final HttpClient client;
  /** Sent as a bearer token with every request that carries no Authorization header of its own; null for none. */
  private final String token;

  public Http(String base) {
    this(base, CLIENT);
  }

  /** Through a client of the test's own, such as one that trusts a TLS cluster's CA. */
  public Http(String base, HttpClient client) {
    this(base, client, null);
  }

  private Http(String base, HttpClient client, String token) {
    this.base = base;
    this.client = client;
    this.token = token;
  }

  /** This client, sending {@code Authorization: Bearer TOKEN} unless a request gives its own. */
  public Http withToken(String token) {
    return new Http(base, client, token);
  }

  /** The node's base url, such as {@code http://127.0.0.1:8080}. */
  public String base() {
    return base;
  }

  public static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  public HttpResponse<byte[]> get(String pathAndQuery) {
    return send("GET", pathAndQuery, HttpRequest.BodyPublishers.noBody());
  }

  public HttpResponse<byte[]> put(String pathAndQuery, byte[] body) {
    return send("PUT", pathAndQuery, HttpRequest.BodyPublishers.ofByteArray(body));
  }

  public HttpResponse<byte[]> put(String pathAndQuery, String body) {
    return put(pathAndQuery, body.getBytes(StandardCharsets.UTF_8));
  }

  public HttpResponse<byte[]> delete(String pathAndQuery) {
    return send("DELETE", pathAndQuery, HttpRequest.BodyPublishers.noBody());
  }

  /** Sends the request with the given header name/value pairs. */
  public HttpResponse<byte[]> send(String method, String pathAndQuery, HttpRequest.BodyPublisher body, String... headers) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + pathAndQuery))
        .timeout(Duration.ofSeconds(30))
        .method(method, body);
    if (headers.length > 0) {
      builder.headers(headers);
    }
    if (token != null && !hasAuthorization(headers)) {
      builder.header("Authorization", "Bearer " + token);
    }
    HttpRequest request = builder.build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new AssertionError(method + " " + pathAndQuery + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static boolean hasAuthorization(String... headers) {
    for (int i = 0; i < headers.length; i += 2) {
      if (headers[i].equalsIgnoreCase("Authorization")) {
        return true;
      }
    }
    return false;
  }

  public static String text(HttpResponse<byte[]> response) {
    return new String(response.body(), StandardCharsets.UTF_8);
  }

  /** PUT /v0/entity?id=key with the value, asserting 201. */
  public void putEntity(String key, String value) {
    HttpResponse<byte[]> response = put("/v0/entity?id=" + encode(key), value);
    if (response.statusCode() != 201) {
      throw new AssertionError("PUT " + key + " answered " + response.statusCode() + ": " + text(response));
    }
  }
}
