package io.quorumkv.http;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.Store;
import io.quorumkv.support.Await;
import io.quorumkv.support.CursorCountingStore;
import io.quorumkv.support.Http;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.Scrapes;
import io.quorumkv.support.TestNode;
import io.quorumkv.web.ApiErrors;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hostile HTTP input against a real node over raw sockets: each case gets a clean 4xx (or 505 for a
 * well-formed HTTP version other than 1.0 and 1.1) with a short text/plain message (never a 500, a
 * hang or a stack trace), stores nothing, and leaves the node serving. The answers are listed in
 * docs/security.md, "Hostile input".
 */
class HostileInputTest {
  private static final int BODY_LIMIT = 64 * 1024;
  private static final int ANSWER_TIMEOUT_MS = 5_000;

  @TempDir
  static Path dataDir;
  static CursorCountingStore cursors = new CursorCountingStore();
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("maxBodyBytes", BODY_LIMIT)), cursors::wrap);
    http = node.http;
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  /** Whatever the hostile case did, the node still answers on a fresh connection. */
  @AfterEach
  void nodeStillServes() throws IOException {
    assertEquals(200, answer("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n").status());
  }

  // --- the request line ---

  @ParameterizedTest
  @ValueSource(strings = {
      "garbage\r\n\r\n",
      "\u0000\u0001\u0002\u0003garbage\r\n\r\n",
      "GET\r\n\r\n",
      "GET /v0/status HTTP/1.1 extra\r\nHost: x\r\n\r\n",
      "GET /v0/status HTTP/1.1\r\nno colon here\r\n\r\n",
      "GET /v0/status HTTP/1.1\r\n: empty name\r\n\r\n",
      "PUT /v0/entity?id=cl-bad HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
      "PUT /v0/entity?id=cl-bad HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
      "PUT /v0/entity?id=cl-bad HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
  })
  void malformedRequestIs400(String request) throws IOException {
    RawHttp.Response response = answer(request);
    assertEquals(400, response.status(), printable(request));
    assertShortPlainText(response);
    assertEquals(404, http.get("/v0/entity?id=cl-bad").statusCode(), "a malformed PUT stored nothing");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v0/entity%zz?id=k", "/%/v0", "/v0/%4", "/%ff%fe"})
  void pathWithBadPercentEncodingIs400(String path) throws IOException {
    RawHttp.Response response = answer("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(400, response.status(), path);
    assertShortPlainText(response);
  }

  @Test
  void http11WithoutHostIs400SayingSo() throws IOException {
    RawHttp.Response response = answer("GET /v0/entity?id=k HTTP/1.1\r\n\r\n");
    assertEquals(400, response.status());
    assertTrue(response.bodyText().contains("Host"), response.bodyText());
    assertShortPlainText(response);
  }

  @Test
  void h2cUpgradeIsIgnoredAndTheRequestAnsweredOverHttp11() throws IOException {
    RawHttp.Response status = answer("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
    assertEquals(200, status.status());
    RawHttp.Response bad = answer("GET /v0/entity HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n");
    assertEquals(400, bad.status());
    assertShortPlainText(bad);
  }

  /** HTTP/0.9 (no version in the request line) has no status line to say 505 with: 400, like any malformed line. */
  @Test
  void requestLineWithoutVersionHttp09StyleIs400AndTheConnectionClosed() throws IOException {
    assertMalformedVersionIs400("GET /v0/status\r\n\r\n");
  }

  /**
   * RFC 9112: HTTP-version = "HTTP" "/" DIGIT "." DIGIT, the name case-sensitive. Anything else
   * (lower case included) is a malformed request line, not a version this server lacks.
   */
  @ParameterizedTest
  @ValueSource(strings = {"HTT/1.1", "HTTX/1.1", "http/1.1", "Http/1.0", "HTTP/01.1", "HTTP/1.10", "HTTP/10.0",
      "HTTP/x.y", "HTTP/1", "FOO", "\u0001\u0002/1.1", "HTTP/1.1/1.1"})
  void malformedVersionIs400WithASaneStatusLineAndTheConnectionClosed(String version) throws IOException {
    assertMalformedVersionIs400("PUT /v0/entity?id=bad-version " + version + "\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
  }

  /** Well-formed versions other than 1.0 and 1.1 (HTTP/2 and 3 do not start with an HTTP/1 request line). */
  @ParameterizedTest
  @ValueSource(strings = {"HTTP/2.0", "HTTP/3.0", "HTTP/1.2", "HTTP/0.9", "HTTP/9.9"})
  void wellFormedButUnsupportedVersionIs505AndTheConnectionClosed(String version) throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(ANSWER_TIMEOUT_MS)) {
      raw.send("PUT /v0/entity?id=bad-version " + version + "\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
      assertEquals("HTTP/1.1 505 HTTP Version Not Supported", peekStatusLine(raw));
      RawHttp.Response response = raw.readResponse();
      assertEquals(505, response.status());
      assertShortPlainText(response);
      assertTrue(response.bodyText().contains("HTTP/1.1"), "says which versions it speaks: " + response.bodyText());
      assertClosedAfterTheAnswer(raw);
    }
    assertEquals(404, http.get("/v0/entity?id=bad-version").statusCode(), "the request was not carried out");
  }

  /**
   * After a bad version the framing of what follows is unknown: a request pipelined behind it is not
   * run. One before it on the same connection is answered as usual.
   */
  @Test
  void requestPipelinedAfterAnUnsupportedVersionIsNotRun() throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(ANSWER_TIMEOUT_MS)) {
      raw.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v0/status HTTP/2.0\r\nHost: x\r\n\r\n"
          + "PUT /v0/entity?id=after-bad-version HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
      assertEquals(200, raw.readResponse().status());
      assertEquals(505, raw.readResponse().status());
      assertClosedAfterTheAnswer(raw);
    }
    assertEquals(404, http.get("/v0/entity?id=after-bad-version").statusCode());
  }

  @ParameterizedTest
  @ValueSource(strings = {"G@T", "GE(T", "FOO", "get", "PROPFIND", "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"})
  void unknownOrMalformedMethodIs4xx(String method) throws IOException {
    RawHttp.Response response = answer(method + " /v0/entity?id=m HTTP/1.1\r\nHost: x\r\n\r\n");
    assertTrue(response.status() == 400 || response.status() == 405, method + " answered " + response.status());
    assertShortPlainText(response);
  }

  // --- the id and the query ---

  @ParameterizedTest
  @ValueSource(strings = {"%zz", "%4", "%", "abc%", "%g0", "a%2"})
  void badPercentEncodingIs400(String id) throws IOException {
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      RawHttp.Response response = answer(method + " /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
      assertEquals(400, response.status(), method + " id=" + id);
      assertTrue(response.bodyText().contains("percent-encoding"), response.bodyText());
      assertShortPlainText(response);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"%ff%fe", "%ff", "a%c3", "%c0%af", "%ed%a0%80", "%e2%82", "%80abc"})
  void idThatIsNotUtf8Is400(String id) throws IOException {
    RawHttp.Response put = answer("PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
    assertEquals(400, put.status(), id);
    assertTrue(put.bodyText().contains("'id' is not valid UTF-8"), put.bodyText());
    assertShortPlainText(put);
    assertEquals(400, answer("GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n").status());
    assertEquals(400, answer("GET /v0/entities?start=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n").status());
    // Decoded leniently, every one of these would have been stored under U+FFFD.
    assertEquals(404, http.get("/v0/entity?id=%EF%BF%BD").statusCode());
    assertEquals(404, http.get("/v0/entity?id=%EF%BF%BD%EF%BF%BD").statusCode());
  }

  @Test
  void percentEncodedUtf8IdIsAccepted() throws IOException {
    RawHttp.Response put = answer("PUT /v0/entity?id=caf%C3%A9%F0%9F%98%80 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
    assertEquals(201, put.status());
    assertEquals("ok", text(http.get("/v0/entity?id=" + Http.encode("café😀"))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ack=99999999999999999999", "from=99999999999999999999", "ack=2147483648&from=1",
      "ack=-99999999999999999999", "ack=0", "ack=-1", "from=0", "ack=1e3", "ack=0x1", "ack=%201", "ack=+1", "ack=%EF%BC%91"})
  void ackOrFromOutOfRangeIs400(String query) throws IOException {
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      RawHttp.Response response = answer(method + " /v0/entity?id=q-bad&" + query
          + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
      assertEquals(400, response.status(), method + " " + query);
      assertTrue(response.bodyText().startsWith("ack") || response.bodyText().startsWith("from"), response.bodyText());
      assertShortPlainText(response);
    }
    assertEquals(404, http.get("/v0/entity?id=q-bad").statusCode());
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "-9223372036854775808", "abc", "", "1.5", "1e3", "99999999999999999999",
      "9223372036854775808", "%00"})
  void badTtlIs400(String ttl) throws IOException {
    RawHttp.Response response = answer("PUT /v0/entity?id=ttl-bad&ttl=" + ttl + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
    assertEquals(400, response.status(), "ttl=" + ttl);
    assertTrue(response.bodyText().startsWith("ttl must be a positive integer"), response.bodyText());
    assertShortPlainText(response);
    assertEquals(404, http.get("/v0/entity?id=ttl-bad").statusCode());
  }

  @ParameterizedTest
  @ValueSource(longs = {Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2 + 1})
  void ttlSoLargeThatNowPlusTtlOverflowsIsClampedToNeverExpiring(long ttl) {
    assertEquals(201, http.put("/v0/entity?id=ttl-huge-" + ttl + "&ttl=" + ttl, "kept").statusCode());
    assertEquals("kept", text(http.get("/v0/entity?id=ttl-huge-" + ttl)), "must not wrap into the past");
  }

  @Test
  void quotedInputInMessagesIsCutShortAndKeptOnOneLine() throws IOException {
    String longAck = "9".repeat(5_000);
    RawHttp.Response response = answer("GET /v0/entity?id=k&ack=" + longAck + "%0a%0dX HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(400, response.status());
    assertShortPlainText(response);
    RawHttp.Response path = answer("GET /%0a%0d" + "p".repeat(5_000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(400, path.status());
    assertShortPlainText(path);
  }

  // --- sizes ---

  @Test
  void hugeUrlIs414() throws IOException {
    RawHttp.Response response = answer("GET /v0/entity?id=" + "u".repeat(HttpVerticle.MAX_INITIAL_LINE_LENGTH + 10)
        + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(414, response.status());
    assertShortPlainText(response);
  }

  @Test
  void longIdBelowTheLineLimitIsAccepted() {
    String id = "l".repeat(HttpVerticle.MAX_INITIAL_LINE_LENGTH - 100);
    assertEquals(201, http.put("/v0/entity?id=" + id, "long id").statusCode());
    assertEquals("long id", text(http.get("/v0/entity?id=" + id)));
  }

  @Test
  void hugeHeaderIs431() throws IOException {
    RawHttp.Response response = answer("GET /v0/status HTTP/1.1\r\nHost: x\r\nX-Big: "
        + "h".repeat(HttpVerticle.MAX_HEADER_SIZE + 10) + "\r\n\r\n");
    assertEquals(431, response.status());
    assertShortPlainText(response);
  }

  @Test
  void manyHeadersOverTheLimitAre431() throws IOException {
    StringBuilder request = new StringBuilder("PUT /v0/entity?id=many-headers HTTP/1.1\r\nHost: x\r\n");
    for (int i = 0; i < 2_000; i++) {
      request.append("X-H").append(i).append(": v\r\n");
    }
    RawHttp.Response response = answer(request.append("Content-Length: 1\r\n\r\nv").toString());
    assertEquals(431, response.status());
    assertShortPlainText(response);
    assertEquals(404, http.get("/v0/entity?id=many-headers").statusCode());
  }

  @Test
  void declaredBodyOverTheLimitIs413AndNothingIsStored() throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(ANSWER_TIMEOUT_MS)) {
      raw.send("PUT /v0/entity?id=too-big HTTP/1.1\r\nHost: x\r\nContent-Length: " + (BODY_LIMIT + 1) + "\r\n\r\n");
      RawHttp.Response response = raw.readResponse();
      assertEquals(413, response.status());
      assertShortPlainText(response);
    }
    assertEquals(404, http.get("/v0/entity?id=too-big").statusCode());
  }

  @Test
  void hugeDeclaredLengthIs413() throws IOException {
    RawHttp.Response response = answer("PUT /v0/entity?id=too-big-decl HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775807\r\n\r\n");
    assertEquals(413, response.status());
    assertShortPlainText(response);
    assertEquals(404, http.get("/v0/entity?id=too-big-decl").statusCode());
  }

  // --- clients that go away ---

  @Test
  void clientDisconnectingMidBodyStoresNothing() throws Exception {
    try (RawHttp raw = new RawHttp(node.port())) {
      raw.send("PUT /v0/entity?id=cut-body HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n\r\n");
      raw.send(new byte[9_999]);
    }
    try (RawHttp raw = new RawHttp(node.port())) {
      raw.send("PUT /v0/entity?id=cut-chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
      raw.send("400\r\n" + "c".repeat(0x400) + "\r\n200\r\n" + "c".repeat(0x100));
    }
    assertEquals(200, http.get("/v0/status").statusCode());
    Await.until("the node let go of both cut-off uploads", Await.TIMEOUT, 
        () -> Scrapes.value(text(http.get("/metrics")), "quorumkv_client_requests_in_flight") == 0);
    assertEquals(404, http.get("/v0/entity?id=cut-body").statusCode());
    assertEquals(404, http.get("/v0/entity?id=cut-chunked").statusCode());
    http.putEntity("cut-body", "whole");
    assertEquals("whole", text(http.get("/v0/entity?id=cut-body")));
  }

  @Test
  void clientDisconnectingMidRangeClosesTheIterator() throws Exception {
    Store store = node.node().store();
    byte[] value = new byte[16 * 1024];
    for (int i = 0; i < 1_000; i++) {
      store.apply(String.format("cut-range-%05d", i).getBytes(StandardCharsets.UTF_8), Record.live(1, value, Record.NEVER));
    }
    int openedBefore = cursors.opened();
    assertEquals(0, cursors.open());
    try (RawHttp raw = new RawHttp(node.port(), 4096)) {
      raw.send("GET /v0/entities?start=cut-range-&end=cut-range. HTTP/1.1\r\nHost: x\r\n\r\n");
      raw.readHead();
      assertTrue(raw.input().readNBytes(64 * 1024).length > 0);
      Await.until("the range is streaming", Duration.ofSeconds(10), () -> cursors.open() == 1);
    }
    Await.until("the range cursor is closed after the client went away", Duration.ofSeconds(10),
        () -> cursors.open() == 0);
    assertEquals(openedBefore + 1, cursors.opened());
  }

  @Test
  void thousandsOfIdleConnectionsDoNotStopTheNodeAndAreClosedAfterTheIdleTimeout(@TempDir Path idleDir) throws Exception {
    long idleTimeoutMs = 3_000;
    try (TestNode idle = TestNode.start(TestNode.config(idleDir, new JsonObject().put("idleTimeoutMs", idleTimeoutMs)),
        java.time.InstantSource.system())) {
      List<Socket> sockets = new ArrayList<>();
      try {
        long opening = System.nanoTime();
        for (int i = 0; i < 2_000; i++) {
          Socket socket = new Socket();
          socket.connect(new InetSocketAddress("127.0.0.1", idle.port()), 5_000);
          sockets.add(socket);
        }
        long openedMs = (System.nanoTime() - opening) / 1_000_000;
        // Leading CR, LF and control bytes are skipped as empty lines before a request: no answer, just idle.
        sockets.get(0).getOutputStream().write("\u0000\u0001\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        long start = System.nanoTime();
        try (RawHttp raw = new RawHttp(idle.port()).timeout(ANSWER_TIMEOUT_MS)) {
          raw.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
          assertEquals(200, raw.readResponse().status());
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs < 2_000, "status took " + tookMs + " ms with 2000 idle connections open");
        assertEquals(201, idle.http.put("/v0/entity?id=among-idle", "v").statusCode());
        System.out.println("opened 2000 idle connections in " + openedMs + " ms; status answered in " + tookMs + " ms");

        long deadline = System.nanoTime() + Duration.ofMillis(idleTimeoutMs + 20_000).toNanos();
        for (Socket socket : sockets) {
          assertClosedByServer(socket, deadline);
        }
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }

  private static void assertClosedByServer(Socket socket, long deadlineNanos) throws IOException {
    long left = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
    socket.setSoTimeout((int) left);
    InputStream in = socket.getInputStream();
    try {
      assertEquals(-1, in.read(), "an idle connection got data");
    } catch (SocketTimeoutException e) {
      fail("an idle connection was still open after the idle timeout");
    } catch (SocketException reset) {
      // closed by the server with a reset: closed all the same
    }
  }

  // --- helpers ---

  /** Sends a raw request on a fresh connection and reads one answer, failing if none comes in time. */
  private static RawHttp.Response answer(String request) throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(ANSWER_TIMEOUT_MS)) {
      raw.send(request.getBytes(StandardCharsets.UTF_8));
      return raw.readResponse();
    }
  }

  private static void assertMalformedVersionIs400(String request) throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(ANSWER_TIMEOUT_MS)) {
      raw.send(request);
      String statusLine = peekStatusLine(raw);
      assertTrue(statusLine.matches("HTTP/1\\.[01] 400 Bad Request"), "status line: " + printable(statusLine));
      RawHttp.Response response = raw.readResponse();
      assertShortPlainText(response);
      assertClosedAfterTheAnswer(raw);
    }
    assertEquals(404, http.get("/v0/entity?id=bad-version").statusCode(), "the request was not carried out");
  }

  /** The status line of the answer about to be read, left unread for {@link RawHttp#readResponse()}. */
  private static String peekStatusLine(RawHttp raw) throws IOException {
    InputStream in = raw.input();
    in.mark(1024);
    String statusLine = RawHttp.readLine(in);
    in.reset();
    return statusLine;
  }

  private static void assertClosedAfterTheAnswer(RawHttp raw) throws IOException {
    try {
      assertEquals(-1, raw.input().read(), "the connection was closed after the answer");
    } catch (SocketException reset) {
      // closed by the server with a reset: closed all the same
    }
  }

  static void assertShortPlainText(RawHttp.Response response) {
    String type = response.headers().getOrDefault("content-type", "");
    assertTrue(type.startsWith("text/plain"), "content-type of a " + response.status() + ": '" + type + "'");
    String body = response.bodyText();
    assertFalse(body.isBlank(), "empty body on a " + response.status());
    assertTrue(body.length() <= ApiErrors.MAX_MESSAGE_CHARS + 8, "long body on a " + response.status() + ": " + body.length());
    assertEquals(1, body.split("\n", -1).length - 1, "one line: " + body);
    assertFalse(body.contains("Exception") || body.contains("\tat "), "stack trace: " + body);
  }

  private static String printable(String request) {
    return request.replace("\r", "\\r").replace("\n", "\\n");
  }
}
