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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a plain client hides, read off a raw socket: the reason phrase of a status line. */
class WireAnswersTest {
  /** Keys whose storage calls fail, so a single node cannot gather its one replica. */
  private static final String BROKEN = "broken-";
  /** Long enough for a loaded machine. */
  private static final int READ_TIMEOUT_MS = 10_000;

  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dataDir, new JsonObject()),
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
