package io.quorumkv.http;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageException;
import io.quorumkv.support.DelegatingStore;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a plain client hides: the interim {@code 100 Continue} answer to {@code Expect: 100-continue}
 * and the reason phrase of a status line, read off a raw socket.
 */
class WireAnswersTest {
  private static final int BODY_LIMIT = 64 * 1024;
  /** Keys whose storage calls fail, so a single node cannot gather its one replica. */
  private static final String BROKEN = "broken-";
  /** Long enough for a loaded machine; a client that got no 100 would wait its own timeout (curl: 1 s). */
  private static final int READ_TIMEOUT_MS = 10_000;

  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("maxBodyBytes", BODY_LIMIT)),
        store -> new DelegatingStore(store) {
          @Override
          public Record get(byte[] key) {
            failIfBroken(key);
            return super.get(key);
          }

          @Override
          public Record apply(byte[] key, Record record) {
            failIfBroken(key);
            return super.apply(key, record);
          }

          @Override
          public List<Record> getAll(List<byte[]> keys) {
            keys.forEach(WireAnswersTest::failIfBroken);
            return super.getAll(keys);
          }

          @Override
          public List<Record> applyAll(List<byte[]> keys, List<Record> records) {
            keys.forEach(WireAnswersTest::failIfBroken);
            return super.applyAll(keys, records);
          }
        });
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void expectContinueWithinTheLimitGets100BeforeTheBodyIsSent() throws IOException {
    byte[] body = new byte[BODY_LIMIT];
    try (RawHttp raw = new RawHttp(node.port()).timeout(READ_TIMEOUT_MS)) {
      raw.send("PUT /v0/entity?id=continued HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length
          + "\r\nExpect: 100-continue\r\n\r\n");
      assertEquals("HTTP/1.1 100 Continue", RawHttp.readLine(raw.input()), "the interim answer comes before any body byte");
      assertEquals("", RawHttp.readLine(raw.input()), "the 100 has no headers");
      raw.send(body);
      assertEquals(201, raw.readResponse().status());
    }
    assertEquals(BODY_LIMIT, node.http.get("/v0/entity?id=continued").body().length);
  }

  @Test
  void expectContinueOverTheLimitGets413Without100() throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(READ_TIMEOUT_MS)) {
      raw.send("PUT /v0/entity?id=not-continued HTTP/1.1\r\nHost: x\r\nContent-Length: " + (BODY_LIMIT + 1)
          + "\r\nExpect: 100-continue\r\n\r\n");
      RawHttp.Response response = raw.readResponse();
      assertEquals(413, response.status(), "the final answer comes first, so the client never uploads");
      assertEquals("close", response.headers().get("connection"));
    }
    assertEquals(404, node.http.get("/v0/entity?id=not-continued").statusCode());
  }

  @Test
  void http10ClientGetsNo100() throws IOException {
    try (RawHttp raw = new RawHttp(node.port()).timeout(READ_TIMEOUT_MS)) {
      raw.send("PUT /v0/entity?id=continued-10 HTTP/1.0\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nv1");
      String statusLine = RawHttp.readLine(raw.input());
      assertTrue(statusLine.startsWith("HTTP/1.0 201 "), "an HTTP/1.0 client knows no interim answers: " + statusLine);
    }
    assertEquals("v1", text(node.http.get("/v0/entity?id=continued-10")));
  }

  @Test
  void notEnoughReplicasStatusLineSaysSo() throws IOException {
    for (String method : new String[] {"GET", "PUT", "DELETE"}) {
      try (RawHttp raw = new RawHttp(node.port()).timeout(READ_TIMEOUT_MS)) {
        raw.send(method + " /v0/entity?id=" + BROKEN + "k HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv");
        assertEquals("HTTP/1.1 504 Not Enough Replicas", RawHttp.readLine(raw.input()), method);
        int length = 0;
        for (String header = RawHttp.readLine(raw.input()); !header.isEmpty(); header = RawHttp.readLine(raw.input())) {
          if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
            length = Integer.parseInt(header.substring("content-length:".length()).trim());
          }
        }
        String body = new String(raw.input().readNBytes(length), StandardCharsets.UTF_8);
        assertTrue(body.startsWith("not enough replicas: "), method + ": " + body);
      }
    }
  }

  private static void failIfBroken(byte[] key) {
    if (new String(key, StandardCharsets.UTF_8).startsWith(BROKEN)) {
      throw new StorageException("injected failure");
    }
  }
}
