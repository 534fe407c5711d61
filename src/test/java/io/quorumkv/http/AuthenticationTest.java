package io.quorumkv.http;

import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.quorumkv.support.NodeProcess.jsonPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * API tokens with roles (docs/api.md#authentication) on a node process started from a conf file
 * with a token of each role (the read one from {@code auth.tokensFile}) and an {@code adminToken}:
 * the 401/403/2xx matrix over every endpoint family, the refusal metrics, and nodes configured
 * with fewer tokens or none.
 */
@ProcessTier
class AuthenticationTest {
  private static final String READER = "reader-7f3a9c";
  private static final String WRITER = "writer-2b8e41";
  private static final String OPS = "ops-5d0c77";
  private static final String LEGACY_ADMIN = "legacy-admin-91e2";
  private static final String UNKNOWN = "not-a-token-4c1d";
  private static final List<String> SECRETS = List.of(READER, WRITER, OPS, LEGACY_ADMIN);

  /** What a request carries, and the role that makes (null: the refusal it gets). */
  private enum Caller {
    NONE(null, 0), UNKNOWN_TOKEN(UNKNOWN, 0), READ(READER, 1), WRITE(WRITER, 2), ADMIN(OPS, 3),
    ADMIN_TOKEN(LEGACY_ADMIN, 3);

    final String token;
    final int rank;

    Caller(String token, int rank) {
      this.token = token;
      this.rank = rank;
    }
  }

  /** One request of an endpoint family, the rank it needs (0: none), and the statuses that mean it went through. */
  private record Family(String method, String path, int needs, Set<Integer> through, String... headers) {
  }

  private static final List<Family> FAMILIES = List.of(
      new Family("GET", "/v0/entity?id=present", 1, Set.of(200)),
      new Family("PUT", "/v0/entity?id=matrix-put", 2, Set.of(201)),
      new Family("PUT", "/v0/entity?id=matrix-conditional", 2, Set.of(201, 412), "If-None-Match", "*"),
      new Family("DELETE", "/v0/entity?id=matrix-delete", 2, Set.of(202)),
      new Family("PATCH", "/v0/entity?id=present", 1, Set.of(405)),
      new Family("GET", "/v0/entities?start=a&end=z", 1, Set.of(200)),
      new Family("GET", "/v0/cluster", 1, Set.of(200)),
      new Family("GET", "/v0/status", 0, Set.of(200)),
      new Family("GET", "/metrics", 0, Set.of(200)),
      new Family("GET", "/ui/", 0, Set.of(200)),
      new Family("GET", "/ui/dashboard.js", 0, Set.of(200)),
      new Family("GET", "/admin/jfr", 3, Set.of(200)),
      new Family("GET", "/admin/jfr/flame?name=absent", 3, Set.of(404)),
      new Family("GET", "/admin/backup", 3, Set.of(200)),
      new Family("GET", "/admin/cluster/leave", 3, Set.of(405)),
      new Family("POST", "/admin/cluster/remove", 3, Set.of(400)),
      new Family("GET", "/admin/restore", 3, Set.of(200)),
      new Family("GET", "/admin/restore/keys?start=a", 3, Set.of(200)),
      new Family("GET", "/admin/unknown", 3, Set.of(400)),
      new Family("GET", "//admin//jfr/", 3, Set.of(200)));

  @TempDir
  static Path dir;
  static NodeProcess node;
  static Http http;
  static int port;

  @BeforeAll
  static void startNode() throws Exception {
    Path tokensFile = Files.writeString(dir.resolve("tokens.json"),
        new JsonArray().add(token("reader", "read", READER)).encodePrettily());
    JsonObject conf = new JsonObject()
        .put("url", "http://127.0.0.1:0")
        .put("dataDir", jsonPath(dir.resolve("data")))
        .put("eventLoops", 1)
        .put("adminToken", LEGACY_ADMIN)
        .put("auth", new JsonObject()
            .put("tokens", new JsonArray().add(token("writer", "write", WRITER)).add(token("ops", "admin", OPS)))
            .put("tokensFile", jsonPath(tokensFile)));
    node = NodeProcess.launchWithConfig(NodeProcess.writeConf(dir, "node.json", conf.encodePrettily()),
        dir.resolve("node.log"));
    port = node.awaitReady();
    http = node.http();
    assertEquals(201, send("PUT", "/v0/entity?id=present", WRITER, "stored").statusCode());
  }

  @AfterAll
  static void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void everyFamilyAnswers401WithoutAValidToken403ForTooWeakARoleAndGoesThroughOtherwise() {
    List<String> wrong = new ArrayList<>();
    for (Family family : FAMILIES) {
      for (Caller caller : Caller.values()) {
        HttpResponse<byte[]> answer = send(family.method(), family.path(), caller.token, "v", family.headers());
        int status = answer.statusCode();
        String refusal = caller.token == null ? "Bearer" : "Bearer error=\"invalid_token\"";
        boolean right;
        if (family.needs() == 0 || caller.rank >= family.needs()) {
          right = family.through().contains(status);
        } else if (caller.rank == 0) {
          right = status == 401 && refusal.equals(answer.headers().firstValue("WWW-Authenticate").orElse(""));
        } else {
          right = status == 403 && Http.text(answer).contains("needs " + (family.needs() == 2 ? "write" : "admin"));
        }
        if (!right) {
          wrong.add(family.method() + " " + family.path() + " as " + caller + ": " + status + " " + Http.text(answer).strip());
        }
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  @Test
  void aRefusedWriteStoresNothing() {
    assertEquals(401, send("PUT", "/v0/entity?id=refused", null, "no token").statusCode());
    assertEquals(401, send("PUT", "/v0/entity?id=refused", UNKNOWN, "unknown").statusCode());
    assertEquals(403, send("PUT", "/v0/entity?id=refused", READER, "read only").statusCode());
    assertEquals(403, send("DELETE", "/v0/entity?id=present", READER, "").statusCode());
    assertEquals(404, send("GET", "/v0/entity?id=refused", READER, "").statusCode());
    HttpResponse<byte[]> present = send("GET", "/v0/entity?id=present", READER, "");
    assertEquals(200, present.statusCode());
    assertEquals("stored", Http.text(present));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Basic cmVhZGVyOnJlYWRlcg==", "Token " + READER, READER, "Bearer", "Bearer    ", "Bearer" + READER})
  void anotherSchemeOrNoTokenAfterBearerIs401AsMissing(String authorization) throws Exception {
    RawHttp.Response answer = RawHttp.exchange(port, "GET /v0/cluster HTTP/1.1\r\nHost: x\r\nAuthorization: "
        + authorization + "\r\n\r\n");
    assertEquals(401, answer.status(), authorization + ": " + answer.bodyText());
    assertEquals("Bearer", answer.headers().get("www-authenticate"));
  }

  @Test
  void spacesAroundTheTokenAndTheSchemesCaseDoNotMatterButATokenWithMoreIsUnknown() throws Exception {
    for (String authorization : new String[] {"Bearer " + READER + "   ", "bearer " + READER, "BEARER  " + READER}) {
      RawHttp.Response answer = RawHttp.exchange(port, "GET /v0/cluster HTTP/1.1\r\nHost: x\r\nAuthorization: "
          + authorization + "\r\n\r\n");
      assertEquals(200, answer.status(), "'" + authorization + "': " + answer.bodyText());
    }
    for (String token : new String[] {READER + "x", READER.substring(1), READER + " x", READER.toUpperCase()}) {
      assertEquals(401, send("GET", "/v0/cluster", token, "").statusCode(), token);
    }
  }

  @Test
  void refusalsAreCountedByReasonAndNoAnswerOrLogHoldsAToken() {
    double missing = refused("missing");
    double unknown = refused("unknown");
    double role = refused("role");
    HttpResponse<byte[]> none = send("GET", "/v0/entity?id=present", null, "");
    HttpResponse<byte[]> bad = send("GET", "/v0/entity?id=present", UNKNOWN, "");
    HttpResponse<byte[]> weak = send("PUT", "/v0/entity?id=present", READER, "x");
    HttpResponse<byte[]> weakAdmin = send("GET", "/admin/jfr", WRITER, "");
    assertEquals(List.of(401, 401, 403, 403), List.of(none.statusCode(), bad.statusCode(), weak.statusCode(),
        weakAdmin.statusCode()));
    assertEquals(missing + 1, refused("missing"));
    assertEquals(unknown + 1, refused("unknown"));
    assertEquals(role + 2, refused("role"));
    for (HttpResponse<byte[]> answer : List.of(none, bad, weak, weakAdmin)) {
      assertFalse(Http.text(answer).contains(UNKNOWN) || Http.text(answer).contains(READER)
          || Http.text(answer).contains(WRITER), Http.text(answer));
      assertTrue(Http.text(answer).length() < 120, Http.text(answer));
    }
    for (String secret : SECRETS) {
      assertFalse(node.log().contains(secret), "the node's log holds a token: " + node.log());
    }
  }

  @Test
  void aWriteWithoutATokenIsRefusedBeforeItsBodyIsRead() throws Exception {
    // 100 MB declared and none of it sent: the 401 comes at once, and the connection closes.
    try (RawHttp raw = new RawHttp(port).timeout(10_000)) {
      raw.send("PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n");
      RawHttp.Response answer = raw.readResponse();
      assertEquals(401, answer.status(), answer.bodyText());
      assertEquals("close", answer.headers().get("connection"));
      assertEquals(-1, raw.input().read(), "the connection is closed");
    }
    // A small body is read and dropped instead, and the connection serves the next request.
    try (RawHttp raw = new RawHttp(port)) {
      raw.send("PUT /v0/entity?id=small HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nAuthorization: Bearer "
          + READER + "\r\n\r\nhello");
      assertEquals(403, raw.readResponse().status());
      raw.send("GET /v0/entity?id=small HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + READER + "\r\n\r\n");
      assertEquals(404, raw.readResponse().status());
    }
  }

  @Test
  void anEncodedPathDoesNotGetAroundTheCheck() throws Exception {
    for (String path : new String[] {"/%61dmin/jfr", "/admin/%6afr", "/v0/%63luster", "/v0/entity/?id=present"}) {
      RawHttp.Response answer = RawHttp.exchange(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
      assertTrue(answer.status() == 401 || answer.status() == 400, path + ": " + answer.status() + " " + answer.bodyText());
    }
  }

  @Test
  void withOnlyAnAdminTokenTheDataApiStaysOpenAndAdminNeedsIt(@TempDir Path data) {
    try (TestNode admin = TestNode.start(TestNode.config(data, new JsonObject().put("adminToken", LEGACY_ADMIN)),
        InstantSource.system())) {
      Http open = admin.http;
      assertEquals(201, open.put("/v0/entity?id=k", "v").statusCode());
      assertEquals(200, open.get("/v0/entity?id=k").statusCode());
      assertEquals(200, open.get("/v0/entities?start=a").statusCode());
      assertEquals(200, open.get("/v0/cluster").statusCode());
      assertEquals(202, open.delete("/v0/entity?id=k").statusCode());
      assertEquals(401, open.get("/admin/jfr").statusCode());
      assertEquals(401, open.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
          "Authorization", "Bearer " + OPS).statusCode());
      assertEquals(200, open.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
          "Authorization", "Bearer " + LEGACY_ADMIN).statusCode());
    }
  }

  @Test
  void withoutTokensEverythingStaysOpenWhateverTheRequestCarries(@TempDir Path data) {
    try (TestNode open = TestNode.start(data)) {
      for (String[] authorization : new String[][] {{}, {"Authorization", "Bearer " + UNKNOWN}}) {
        Http http = open.http;
        assertEquals(201, http.send("PUT", "/v0/entity?id=k", HttpRequest.BodyPublishers.ofString("v"),
            authorization).statusCode());
        for (String path : new String[] {"/v0/entity?id=k", "/v0/entities?start=a", "/v0/cluster", "/admin/jfr",
            "/admin/backup", "/admin/restore", "/metrics"}) {
          assertEquals(200, http.send("GET", path, HttpRequest.BodyPublishers.noBody(), authorization).statusCode(), path);
        }
        assertEquals(202, http.send("DELETE", "/v0/entity?id=k", HttpRequest.BodyPublishers.noBody(),
            authorization).statusCode());
      }
    }
  }

  private static JsonObject token(String name, String role, String secret) {
    return new JsonObject().put("name", name).put("role", role).put("token", secret);
  }

  private static HttpResponse<byte[]> send(String method, String path, String token, String body, String... headers) {
    List<String> all = new ArrayList<>(List.of(headers));
    if (token != null) {
      all.addAll(List.of("Authorization", "Bearer " + token));
    }
    HttpRequest.BodyPublisher publisher = method.equals("PUT") || method.equals("POST") || method.equals("PATCH")
        ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody();
    return http.send(method, path, publisher, all.toArray(String[]::new));
  }

  private static final Pattern REFUSED = Pattern.compile("quorumkv_auth_refused_total\\{reason=\"(\\w+)\",?\\} (\\S+)");

  /** The node's count of refusals for {@code reason}, from /metrics (which needs no token). */
  private static double refused(String reason) {
    HttpResponse<byte[]> metrics = http.get("/metrics");
    assertEquals(200, metrics.statusCode());
    Matcher matcher = REFUSED.matcher(Http.text(metrics));
    while (matcher.find()) {
      if (matcher.group(1).equals(reason)) {
        return Double.parseDouble(matcher.group(2));
      }
    }
    throw new AssertionError("no quorumkv_auth_refused_total{reason=\"" + reason + "\"} in /metrics");
  }
}
