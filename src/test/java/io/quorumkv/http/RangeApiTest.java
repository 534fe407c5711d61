package io.quorumkv.http;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.Store;
import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.ManualClock;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.quorumkv.support.Http.encode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /v0/entities}: boundaries, what is left out, the chunk framing, and a range of 200,000 records. */
class RangeApiTest {
  private static final int BIG_RANGE = 200_000;

  @TempDir
  static Path dataDir;
  static ManualClock clock;
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    clock = ManualClock.startingNow();
    node = TestNode.start(TestNode.config(dataDir, new JsonObject()), clock);
    http = node.http;
    for (String key : List.of("b1", "b2", "b3", "b4", "b5")) {
      http.putEntity(key, "value-" + key);
    }
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void startIsInclusiveAndEndExclusive() throws IOException {
    assertEquals(List.of("b2\nvalue-b2", "b3\nvalue-b3"), chunks("start=b2&end=b4"));
  }

  @Test
  void noEndRunsToTheLastKey() throws IOException {
    assertEquals(List.of("b4\nvalue-b4", "b5\nvalue-b5"), chunks("start=b4&end=b6"));
    List<String> all = chunks("start=b4");
    assertEquals("b4\nvalue-b4", all.get(0));
    assertEquals("b5\nvalue-b5", all.get(1));
  }

  @Test
  void startBetweenKeysBeginsAtTheNextKey() throws IOException {
    assertEquals(List.of("b2\nvalue-b2"), chunks("start=b1a&end=b3"));
  }

  @Test
  void emptyRangesAreEmpty200Bodies() throws IOException {
    for (String query : List.of("start=b3&end=b3", "start=b4&end=b2", "start=b31&end=b32", "start=zzzz")) {
      RawHttp.Response response = range(query);
      assertEquals(200, response.status(), query);
      assertEquals(List.of(), response.chunks(), query);
    }
  }

  @Test
  void emptyValuesAreChunksOfKeyAndNewline() throws IOException {
    http.put("/v0/entity?id=e-empty", new byte[0]);
    assertEquals(List.of("e-empty\n"), chunks("start=e-&end=e.."));
  }

  @Test
  void deletedAndExpiredKeysAreLeftOut() throws IOException {
    http.putEntity("d1", "kept");
    http.putEntity("d2", "deleted");
    http.put("/v0/entity?id=d3&ttl=1000", "expiring");
    http.putEntity("d4", "kept too");
    http.delete("/v0/entity?id=d2");
    assertEquals(List.of("d1\nkept", "d3\nexpiring", "d4\nkept too"), chunks("start=d&end=e"));
    clock.advance(1_000);
    assertEquals(List.of("d1\nkept", "d4\nkept too"), chunks("start=d&end=e"));
  }

  @Test
  void keysSortByTheirUtf8Bytes() throws IOException {
    for (String key : List.of("u-é", "u-z", "u-Z", "u-ё")) {
      http.putEntity(key, "x");
    }
    List<String> keys = chunks("start=u-&end=u.").stream().map(c -> c.substring(0, c.indexOf('\n'))).toList();
    assertEquals(List.of("u-Z", "u-z", "u-é", "u-ё"), keys);
  }

  @Test
  void rangeUsesChunkedEncodingOnTheWire() throws IOException {
    RawHttp.Response response = range("start=b1&end=b3");
    assertEquals("chunked", response.headers().get("transfer-encoding"));
    assertNull(response.headers().get("content-length"));
    assertEquals(2, response.chunks().size(), "one chunk per record");
  }

  @Test
  void missingOrEmptyStartOrEmptyEndIs400() throws IOException {
    for (String query : List.of("", "start=", "end=b3", "start=b1&end=")) {
      RawHttp.Response response = range(query);
      assertEquals(400, response.status(), query);
      assertTrue(response.headers().get("content-type").startsWith("text/plain"));
    }
    assertEquals("missing or empty 'start' (start=%00 is the first key)", range("end=b3").bodyText().strip(),
        "the answer says how to ask for every key");
  }

  @Test
  void startPercent00IsTheFirstKey() throws IOException {
    assertEquals(List.of("b1\nvalue-b1", "b2\nvalue-b2"), chunks("start=%00&end=b3"));
  }

  @Test
  void aRangeOf200000RecordsArrivesCompleteAndInOrder() throws IOException {
    Store store = node.node().store();
    for (int i = 0; i < BIG_RANGE; i++) {
      store.apply(bigKey(i), Record.live(i + 1, bigValue(i), Record.NEVER));
    }
    try (RawHttp raw = new RawHttp(node.port())) {
      raw.send("GET /v0/entities?start=" + encode("big-") + "&end=" + encode("big.")
          + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      RawHttp.Response response = raw.readResponse();
      assertEquals(200, response.status());
      assertEquals(BIG_RANGE, response.chunks().size());
      for (int i = 0; i < BIG_RANGE; i++) {
        String expected = new String(bigKey(i), StandardCharsets.UTF_8) + "\n" + new String(bigValue(i), StandardCharsets.UTF_8);
        assertEquals(expected, new String(response.chunks().get(i), StandardCharsets.UTF_8), "record " + i);
      }
    }
  }

  @Test
  void aStalledReaderPausesTheScan() throws IOException {
    Store store = node.node().store();
    int records = 100_000;
    byte[] value = "v".repeat(1_000).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < records; i++) {
      store.apply(String.format("slow-%06d", i).getBytes(StandardCharsets.UTF_8), Record.live(1, value, Record.NEVER));
    }
    long scannedBefore = node.node().storage().rangeRecordsScanned();
    try (RawHttp raw = new RawHttp(node.port(), 16 * 1024)) {
      raw.send("GET /v0/entities?start=slow-&end=slow. HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      raw.readHead();
      assertNotNull(raw.readChunk());
      // The reader stops here; the scan must stall well short of the 100 MB range
      // (the kernel's socket buffers hold a few MB) rather than buffer it in the heap.
      Await.until("the scan stalls", Duration.ofSeconds(20), new StallDetector(() -> node.node().storage().rangeRecordsScanned()));
      long scannedWhileStalled = node.node().storage().rangeRecordsScanned() - scannedBefore;
      assertTrue(scannedWhileStalled < records / 2, "scanned " + scannedWhileStalled + " of " + records + " for a stalled reader");

      int received = 1;
      while (raw.readChunk() != null) {
        received++;
      }
      assertEquals(records, received);
    }
  }

  /** True once the counter has not moved for several consecutive polls. */
  private static final class StallDetector implements java.util.function.BooleanSupplier {
    private static final int STEADY_POLLS = 25;
    private final java.util.function.LongSupplier counter;
    private long last = -1;
    private int steady;

    StallDetector(java.util.function.LongSupplier counter) {
      this.counter = counter;
    }

    @Override
    public boolean getAsBoolean() {
      long now = counter.getAsLong();
      steady = now == last ? steady + 1 : 0;
      last = now;
      return steady >= STEADY_POLLS;
    }
  }

  private static byte[] bigKey(int i) {
    return String.format("big-%07d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bigValue(int i) {
    return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
  }

  private static RawHttp.Response range(String query) throws IOException {
    return RawHttp.exchange(node.port(), "GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }

  private static List<String> chunks(String query) throws IOException {
    RawHttp.Response response = range(query);
    assertEquals(200, response.status(), query);
    List<String> result = new ArrayList<>();
    for (byte[] chunk : response.chunks()) {
      result.add(new String(chunk, StandardCharsets.UTF_8));
    }
    return result;
  }
}
