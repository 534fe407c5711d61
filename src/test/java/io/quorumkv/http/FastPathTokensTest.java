package io.quorumkv.http;

import io.quorumkv.support.Http;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node with API tokens serves the plain entity requests of a caller whose token grants them on
 * the fast path, and leaves those it refuses to the router, which answers 401 or 403 as for every
 * other route. {@code quorumkv_entity_requests_routed_total} counts the entity requests the fast
 * path left to the router: it stays put while the granted ones are answered.
 */
class FastPathTokensTest {
  private static final String READER = "fast-reader-0c41e9";
  private static final String WRITER = "fast-writer-7ad205";
  private static final Pattern ROUTED = Pattern.compile("(?m)^quorumkv_entity_requests_routed_total(?:\\{[^}]*})? (\\S+)$");

  @TempDir
  static Path dir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dir, new JsonObject().put("auth", new JsonObject().put("tokens",
        new JsonArray().add(token("reader", "read", READER)).add(token("writer", "write", WRITER))))),
        InstantSource.system());
  }

  @AfterAll
  static void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void grantedEntityRequestsAreAnsweredOnTheFastPath() {
    double routed = routed();
    assertEquals(201, send("PUT", "/v0/entity?id=k", WRITER, "v1").statusCode());
    HttpResponse<byte[]> read = send("GET", "/v0/entity?id=k", READER, "");
    assertEquals(200, read.statusCode());
    assertEquals("v1", Http.text(read));
    assertEquals(200, send("GET", "/v0/entity?id=k", WRITER, "").statusCode(), "write includes read");
    assertEquals(202, send("DELETE", "/v0/entity?id=k", WRITER, "").statusCode());
    assertEquals(404, send("GET", "/v0/entity?id=k", READER, "").statusCode());
    assertEquals(routed, routed(), "none of them was left to the router");

    assertEquals(201, send("PUT", "/v0/entity?id=k", WRITER, "v2", "If-None-Match", "*").statusCode());
    assertEquals(routed + 1, routed(), "a conditional write is the router's, and counted");
  }

  @Test
  void refusedEntityRequestsGet401Or403FromTheRouter() {
    double routed = routed();
    HttpResponse<byte[]> none = send("GET", "/v0/entity?id=k", null, "");
    assertEquals(401, none.statusCode());
    assertEquals("Bearer", none.headers().firstValue("WWW-Authenticate").orElse(""));
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      HttpResponse<byte[]> unknown = send(method, "/v0/entity?id=k", "not-a-token", method.equals("PUT") ? "x" : "");
      assertEquals(401, unknown.statusCode(), method);
      assertEquals("Bearer error=\"invalid_token\"", unknown.headers().firstValue("WWW-Authenticate").orElse(""));
    }
    for (String method : new String[] {"PUT", "DELETE"}) {
      HttpResponse<byte[]> weak = send(method, "/v0/entity?id=refused", READER, method.equals("PUT") ? "x" : "");
      assertEquals(403, weak.statusCode(), method);
      assertTrue(Http.text(weak).contains("needs write"), Http.text(weak));
      assertEquals("Bearer error=\"insufficient_scope\"", weak.headers().firstValue("WWW-Authenticate").orElse(""));
    }
    assertEquals(routed + 6, routed(), "each refusal was left to the router");
    assertEquals(404, send("GET", "/v0/entity?id=refused", READER, "").statusCode(), "a refused write stores nothing");
  }

  private static HttpResponse<byte[]> send(String method, String path, String token, String body, String... headers) {
    String[] all = token == null ? headers : append(headers, "Authorization", "Bearer " + token);
    return node.http.send(method, path, HttpRequest.BodyPublishers.ofString(body), all);
  }

  private static String[] append(String[] headers, String name, String value) {
    String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
    all[headers.length] = name;
    all[headers.length + 1] = value;
    return all;
  }

  private static double routed() {
    Matcher found = ROUTED.matcher(Http.text(node.http.get("/metrics")));
    assertTrue(found.find(), "the routed count is among the metrics");
    return Double.parseDouble(found.group(1));
  }

  private static JsonObject token(String name, String role, String secret) {
    return new JsonObject().put("name", name).put("role", role).put("token", secret);
  }
}
