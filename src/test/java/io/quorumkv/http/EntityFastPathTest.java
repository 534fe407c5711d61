package io.quorumkv.http;

import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EntityFastPath} answers what the router answers. A node without tokens serves the plain
 * entity requests on the fast path; a node with a token and the fast path turned off
 * ({@code entityFastPath: false}) serves everything through the router. The
 * same requests, in the same order, go to both (with the token to the second), and every answer
 * must agree: status, the headers a client reads, and the body (versions aside, which each node's
 * clock issues). Then requests abandoned mid-way on the fast path must give back what they held.
 */
class EntityFastPathTest {
  private static final String TOKEN = "fast-path-test-token-0123456789";
  private static final int BODY_LIMIT = 256 * 1024;
  private static final List<String> COMPARED_HEADERS = List.of("content-type", "retry-after", "allow", "connection",
      "www-authenticate");
  private static final Pattern IN_FLIGHT = Pattern.compile("(?m)^quorumkv_client_requests_in_flight (\\S+)$");
  private static final Pattern CLIENT_BYTES =
      Pattern.compile("(?m)^quorumkv_admission_bytes\\{budget=\"client\",?} (\\S+)$");

  @TempDir
  static Path dir;
  static TestNode fast;
  static TestNode routed;

  @BeforeAll
  static void startNodes() {
    JsonObject common = new JsonObject().put("maxBodyBytes", BODY_LIMIT);
    fast = TestNode.start(TestNode.config(dir.resolve("fast"), common.copy()), InstantSource.system());
    routed = TestNode.start(TestNode.config(dir.resolve("routed"), common.copy().put("entityFastPath", false)
        .put("auth", new JsonObject().put("tokens", new JsonArray()
            .add(new JsonObject().put("name", "ops").put("role", "admin").put("token", TOKEN))))),
        InstantSource.system());
  }

  @AfterAll
  static void stopNodes() {
    for (TestNode node : new TestNode[] {fast, routed}) {
      if (node != null) {
        node.close();
      }
    }
  }

  @Test
  void everyEntityRequestGetsTheAnswerTheRouterGives() throws IOException {
    String large = "L".repeat(70 * 1024);
    String tooLarge = "T".repeat(BODY_LIMIT + 1);
    List<String> requests = List.of(
        put("/v0/entity?id=a", "hello"),
        get("/v0/entity?id=a", ""),
        get("/v0/entity?id=a", "If-None-Match: *\r\n"),
        get("/v0/entity?id=a", "If-None-Match: \"1\"\r\n"),
        get("/v0/entity?id=a", "If-Match: *\r\n"),
        get("/v0/entity?id=a", "If-None-Match: nonsense\r\n"),
        get("/v0/entity?id=missing", ""),
        get("/v0/entity", ""),
        get("/v0/entity?id=", ""),
        get("/v0/entity?id=a&id=b", ""),
        get("/v0/entity?id=a&ack=0", ""),
        get("/v0/entity?id=a&ack=2&from=1", ""),
        get("/v0/entity?id=a&ack=x", ""),
        get("/v0/entity?id=a&from=3", ""),
        get("/v0/entity?id=%ff", ""),
        get("/v0/entity?id=%zz", ""),
        get("/v0/entity?id=a;b", ""),
        get("/v0/entity/?id=a", ""),
        "GET /v0/entity?id=a HTTP/1.1\r\nContent-Length: 3\r\n%AUTH%Host: x\r\n\r\nabc",
        "GET /v0/entity?id=a HTTP/1.0\r\n%AUTH%\r\n",
        "GET /v0/entity?id=a HTTP/1.1\r\n%AUTH%\r\n",
        "HEAD /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n%AUTH%\r\n",
        "POST /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n%AUTH%\r\nx",
        put("/v0/entity?id=empty", ""),
        get("/v0/entity?id=empty", ""),
        put("/v0/entity?id=ttl&ttl=0", "v"),
        put("/v0/entity?id=ttl&ttl=abc", "v"),
        put("/v0/entity?id=ttl&ttl=600000", "v"),
        get("/v0/entity?id=ttl", ""),
        put("/v0/entity", "v"),
        put("/v0/entity?id=q&ack=3&from=2", "v"),
        put("/v0/entity?id=q&from=2", "v"),
        put("/v0/entity?id=c", "first", "If-None-Match: *\r\n"),
        put("/v0/entity?id=c", "second", "If-None-Match: *\r\n"),
        put("/v0/entity?id=c", "third", "If-Match: \"1\"\r\n"),
        put("/v0/entity?id=c", "third", "If-Match: *\r\n"),
        get("/v0/entity?id=c", ""),
        "PUT /v0/entity?id=chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n%AUTH%\r\n"
            + "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        get("/v0/entity?id=chunked", ""),
        put("/v0/entity?id=large", large),
        get("/v0/entity?id=large", ""),
        put("/v0/entity?id=huge", tooLarge),
        delete("/v0/entity?id=a", ""),
        get("/v0/entity?id=a", ""),
        delete("/v0/entity?id=a", ""),
        delete("/v0/entity?id=c", "If-Match: \"1\"\r\n"),
        delete("/v0/entity?id=c", "If-None-Match: *\r\n"),
        delete("/v0/entity", ""),
        delete("/v0/entity?id=b&ack=2", ""),
        "DELETE /v0/entity?id=b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n%AUTH%\r\nxy");
    List<String> differences = new ArrayList<>();
    for (String request : requests) {
      String fastAnswer = describe(RawHttp.exchange(fast.port(), request.replace("%AUTH%", "")));
      String routedAnswer = describe(RawHttp.exchange(routed.port(),
          request.replace("%AUTH%", "Authorization: Bearer " + TOKEN + "\r\n")));
      if (!fastAnswer.equals(routedAnswer)) {
        differences.add(firstLine(request) + "\n  fast path: " + fastAnswer + "\n  router:    " + routedAnswer);
      }
    }
    assertTrue(differences.isEmpty(), differences.size() + " of " + requests.size() + " requests answered "
        + "differently:\n" + String.join("\n", differences));
  }

  @Test
  void requestsAbandonedMidWayGiveBackTheirPlaceAndTheirBytes() throws Exception {
    List<Socket> abandoned = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      Socket socket = new Socket("127.0.0.1", fast.port());
      String head = i % 2 == 0
          ? "PUT /v0/entity?id=abandoned-" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789"
          : "GET /v0/entity?id=abandoned-" + i + " HTTP/1.1\r\nHost: x\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      abandoned.add(socket);
    }
    Await.until("the half-sent PUTs hold their bodies' bytes", Duration.ofSeconds(10),
        () -> metric(CLIENT_BYTES) > 0, EntityFastPathTest::held);
    for (Socket socket : abandoned) {
      socket.close();
    }
    Await.until("no request in flight and no body byte held", Duration.ofSeconds(10),
        () -> metric(IN_FLIGHT) == 0 && metric(CLIENT_BYTES) == 0, EntityFastPathTest::held);
    assertEquals(201, fast.http.put("/v0/entity?id=after", "v").statusCode());
    assertEquals("v", Http.text(fast.http.get("/v0/entity?id=after")));
  }

  private static String put(String target, String body) {
    return put(target, body, "");
  }

  private static String put(String target, String body, String headers) {
    return "PUT " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n" + headers
        + "%AUTH%\r\n" + body;
  }

  private static String get(String target, String headers) {
    return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "%AUTH%\r\n";
  }

  private static String delete(String target, String headers) {
    return "DELETE " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "%AUTH%\r\n";
  }

  /** What a client reads of an answer, with the version (each node's own) left out. */
  private static String describe(RawHttp.Response answer) {
    StringBuilder seen = new StringBuilder().append(answer.status());
    for (String header : COMPARED_HEADERS) {
      String value = answer.headers().get(header);
      if (value != null) {
        seen.append(' ').append(header).append('=').append(value);
      }
    }
    String version = answer.headers().get("x-qkv-version");
    String tag = answer.headers().get("etag");
    seen.append(version == null ? " no-version" : " version");
    seen.append(tag == null ? " no-etag" : tag.equals("\"" + version + "\"") ? " etag-of-version" : " etag=" + tag);
    String body = answer.bodyText();
    return seen.append(" body=").append(body.length() > 60 ? body.length() + " bytes" : body.strip()).toString();
  }

  private static String firstLine(String request) {
    return request.substring(0, request.indexOf('\r'));
  }

  private static String held() {
    return "requests in flight " + metric(IN_FLIGHT) + ", client body bytes held " + metric(CLIENT_BYTES);
  }

  private static String metrics() {
    return Http.text(fast.http.get("/metrics"));
  }

  private static double metric(Pattern series) {
    Matcher found = series.matcher(metrics());
    return found.find() ? Double.parseDouble(found.group(1)) : -1;
  }
}
