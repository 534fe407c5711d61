package io.quorumkv.http;

import io.quorumkv.support.Http;
import io.quorumkv.support.ManualClock;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static io.quorumkv.support.Http.encode;
import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code /v0/entity}, {@code /v0/status} and error rows of the API table, against a real node. */
class EntityApiTest {
  private static final int BODY_LIMIT = 64 * 1024;

  @TempDir
  static Path dataDir;
  static ManualClock clock;
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    clock = ManualClock.startingNow();
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("maxBodyBytes", BODY_LIMIT)), clock);
    http = node.http;
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void statusAnswers200() {
    HttpResponse<byte[]> response = http.get("/v0/status");
    assertEquals(200, response.statusCode());
  }

  @Test
  void putThenGetReturnsTheValue() {
    assertEquals(201, http.put("/v0/entity?id=lifecycle", "v1").statusCode());
    HttpResponse<byte[]> read = http.get("/v0/entity?id=lifecycle");
    assertEquals(200, read.statusCode());
    assertEquals("v1", text(read));
  }

  @Test
  void putOverwritesAndDeleteRemoves() {
    http.putEntity("upsert", "first");
    http.putEntity("upsert", "second");
    assertEquals("second", text(http.get("/v0/entity?id=upsert")));
    assertEquals(202, http.delete("/v0/entity?id=upsert").statusCode());
    assertEquals(404, http.get("/v0/entity?id=upsert").statusCode());
    http.putEntity("upsert", "third");
    assertEquals("third", text(http.get("/v0/entity?id=upsert")));
  }

  @Test
  void getOfAbsentKeyIs404() {
    assertEquals(404, http.get("/v0/entity?id=never-written").statusCode());
  }

  @Test
  void deleteOfAbsentKeyIs202() {
    assertEquals(202, http.delete("/v0/entity?id=never-written-either").statusCode());
    assertEquals(404, http.get("/v0/entity?id=never-written-either").statusCode());
  }

  @Test
  void emptyAndBinaryValuesRoundTrip() {
    assertEquals(201, http.put("/v0/entity?id=empty", new byte[0]).statusCode());
    HttpResponse<byte[]> empty = http.get("/v0/entity?id=empty");
    assertEquals(200, empty.statusCode());
    assertEquals(0, empty.body().length);

    byte[] binary = new byte[50_000];
    new Random(7).nextBytes(binary);
    assertEquals(201, http.put("/v0/entity?id=binary", binary).statusCode());
    assertArrayEquals(binary, http.get("/v0/entity?id=binary").body());
  }

  @Test
  void idsAreUrlDecodedAndAnyUnicodeString() {
    String id = "ключ/with spaces&=?%#\n";
    http.putEntity(id, "unicode");
    assertEquals("unicode", text(http.get("/v0/entity?id=" + encode(id))));
    assertEquals(404, http.get("/v0/entity?id=" + encode("ключ")).statusCode());
  }

  @Test
  void bodiesAreRawBytesWhateverTheContentType() {
    String json = "{\"a\": \"" + "x".repeat(5_000) + "\", \"pct\": \"100%\"}";
    for (String type : new String[] {"application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", "text/plain"}) {
      HttpResponse<byte[]> put = http.send("PUT", "/v0/entity?id=typed", HttpRequest.BodyPublishers.ofString(json),
          "Content-Type", type);
      assertEquals(201, put.statusCode(), type);
      assertEquals(json, text(http.get("/v0/entity?id=typed")), type);
    }
  }

  @Test
  void semicolonsArePartOfTheId() {
    http.putEntity("a;b", "semi");
    assertEquals("semi", text(http.get("/v0/entity?id=" + encode("a;b"))));
    assertEquals("semi", text(http.get("/v0/entity?id=a;b")));
    assertEquals(404, http.get("/v0/entity?id=a").statusCode());
  }

  @Test
  void explicitAckAndFromOfOneAreAccepted() {
    assertEquals(201, http.put("/v0/entity?id=quorum&ack=1&from=1", "q").statusCode());
    assertEquals(200, http.get("/v0/entity?id=quorum&ack=1&from=1").statusCode());
    assertEquals(200, http.get("/v0/entity?id=quorum&from=1").statusCode());
    assertEquals(200, http.get("/v0/entity?id=quorum&ack=1").statusCode());
    assertEquals(202, http.delete("/v0/entity?id=quorum&ack=1&from=1").statusCode());
  }

  @Test
  void writesAnswerWithIncreasingVersions() {
    long first = Long.parseLong(http.put("/v0/entity?id=versioned", "a").headers().firstValue(ApiHeaders.VERSION).orElseThrow());
    long second = Long.parseLong(http.delete("/v0/entity?id=versioned").headers().firstValue(ApiHeaders.VERSION).orElseThrow());
    assertTrue(second > first, second + " should be above " + first);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v0/entity", "/v0/entity?id=", "/v0/entity?ID=x", "/v0/entity?id"})
  void missingOrEmptyIdIs400(String path) {
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      HttpResponse<byte[]> response = http.send(method, path, HttpRequest.BodyPublishers.ofString("v"));
      assertEquals(400, response.statusCode(), method + " " + path);
      assertTrue(text(response).contains("id"), text(response));
      assertPlainText(response);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"ack=0", "ack=-1", "ack=x", "ack=", "from=0", "from=2", "from=one", "ack=2&from=1",
      "ack=2", "ack=1&from=3", "ack=99999999999", "from=2147483648", "ack=1.0",
      "ack=%2B1", "from=%2B1", "ack=-0", "ack=%EF%BC%91", "ack=%201"})
  void badAckOrFromIs400(String query) {
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      HttpResponse<byte[]> response = http.send(method, "/v0/entity?id=k&" + query, HttpRequest.BodyPublishers.ofString("v"));
      assertEquals(400, response.statusCode(), method + " " + query);
      assertFalse(text(response).isBlank());
      assertPlainText(response);
    }
    assertEquals(404, http.get("/v0/entity?id=k").statusCode(), "a refused PUT stored nothing");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-5", "abc", "", "1.5", "99999999999999999999"})
  void badTtlIs400(String ttl) {
    HttpResponse<byte[]> response = http.put("/v0/entity?id=ttl-bad&ttl=" + ttl, "v");
    assertEquals(400, response.statusCode(), "ttl=" + ttl);
    assertTrue(text(response).contains("ttl"), text(response));
    assertEquals(404, http.get("/v0/entity?id=ttl-bad").statusCode());
  }

  @Test
  void ttlRecordReadsUntilExpiryThen404() {
    assertEquals(201, http.put("/v0/entity?id=ttl-key&ttl=5000", "short-lived").statusCode());
    clock.advance(4_999);
    assertEquals("short-lived", text(http.get("/v0/entity?id=ttl-key")));
    clock.advance(1);
    assertEquals(404, http.get("/v0/entity?id=ttl-key").statusCode());
  }

  @Test
  void hugeTtlNeverOverflowsIntoThePast() {
    assertEquals(201, http.put("/v0/entity?id=ttl-huge&ttl=" + Long.MAX_VALUE, "long-lived").statusCode());
    assertEquals("long-lived", text(http.get("/v0/entity?id=ttl-huge")));
  }

  @Test
  void overwriteWithoutTtlMakesTheKeyPermanent() {
    http.put("/v0/entity?id=ttl-then-plain&ttl=1000", "temp");
    http.putEntity("ttl-then-plain", "permanent");
    clock.advance(2_000);
    assertEquals("permanent", text(http.get("/v0/entity?id=ttl-then-plain")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"POST", "PATCH", "HEAD", "OPTIONS"})
  void otherMethodsOnEntityAre405(String method) {
    HttpResponse<byte[]> response = http.send(method, "/v0/entity?id=k", HttpRequest.BodyPublishers.noBody());
    assertEquals(405, response.statusCode(), method);
    assertTrue(response.headers().firstValue("allow").orElse("").contains("PUT"));
  }

  @Test
  void otherMethodsOnStatusAndRangeAre405() {
    assertEquals(405, http.send("POST", "/v0/status", HttpRequest.BodyPublishers.noBody()).statusCode());
    assertEquals(405, http.send("PUT", "/v0/entities?start=a", HttpRequest.BodyPublishers.noBody()).statusCode());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/v0", "/v0/entityx?id=k", "/v1/entity?id=k", "/v0/entity/k", "/v0/statuses"})
  void unknownPathsAre400(String path) {
    HttpResponse<byte[]> response = http.get(path);
    assertEquals(400, response.statusCode(), path);
    assertPlainText(response);
  }

  @Test
  void badPercentEncodingIs400() throws Exception {
    RawHttp.Response response = RawHttp.exchange(node.port(),
        "GET /v0/entity?id=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertEquals(400, response.status());
    assertTrue(response.bodyText().contains("percent"), response.bodyText());
  }

  @Test
  void bodyOverTheLimitIs413AndNothingIsStored() {
    HttpResponse<byte[]> response = http.put("/v0/entity?id=too-big", new byte[BODY_LIMIT + 1]);
    assertEquals(413, response.statusCode());
    assertPlainText(response);
    assertEquals(404, http.get("/v0/entity?id=too-big").statusCode());
    assertEquals(201, http.put("/v0/entity?id=just-fits", new byte[BODY_LIMIT]).statusCode());
  }

  @Test
  void chunkedBodyOverTheLimitIs413() throws Exception {
    try (RawHttp raw = new RawHttp(node.port())) {
      raw.send("PUT /v0/entity?id=too-big-chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
      byte[] chunk = new byte[16 * 1024];
      String header = Integer.toHexString(chunk.length) + "\r\n";
      try {
        for (int i = 0; i < 6; i++) {
          raw.send(header.getBytes(StandardCharsets.US_ASCII));
          raw.send(chunk);
          raw.send("\r\n");
        }
        raw.send("0\r\n\r\n");
      } catch (java.io.IOException closedEarly) {
        // the node may close the connection as soon as it has answered 413
      }
      assertEquals(413, raw.readResponse().status());
    }
    assertEquals(404, http.get("/v0/entity?id=too-big-chunked").statusCode());
  }

  private static void assertPlainText(HttpResponse<byte[]> response) {
    assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("text/plain"),
        "content-type of " + response.statusCode());
  }
}
