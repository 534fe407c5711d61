package io.quorumkv.http;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.BatchAnswers;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestNode;
import io.quorumkv.web.ApiHeaders;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.WireFormat;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /internal/v0/record}: a replica's own copy, its replica count in {@link RecordHeaders#REPLICAS};
 * and the bound on {@code /internal/v0/records} batches.
 */
class InternalRecordApiTest {
  @TempDir
  static Path dataDir;
  static TestNode node;
  static int keys;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(dataDir);
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  /**
   * Reads take 5 request bytes each but may answer with a value of up to the body limit each: a
   * replica bounds a batch to what coordinators send, so one small request cannot make it build
   * an answer larger than its heap.
   */
  @Test
  void aBatchOfMoreOperationsThanCoordinatorsSendIs413() {
    String key = nextKey();
    node.http.putEntity(key, "x".repeat(1_000));
    List<BatchOperations.Operation> reads = new ArrayList<>();
    for (int i = 0; i < InternalProtocol.MAX_BATCH_OPERATIONS; i++) {
      reads.add(new BatchOperations.Operation(bytes(key), null));
    }
    HttpResponse<byte[]> full = postBatch(reads);
    assertEquals(200, full.statusCode());
    assertEquals(InternalProtocol.MAX_BATCH_OPERATIONS, BatchAnswers.decode(Buffer.buffer(full.body())).size());

    reads.add(new BatchOperations.Operation(bytes(key), null));
    HttpResponse<byte[]> over = postBatch(reads);
    assertEquals(413, over.statusCode());
    assertEquals("batch of more than " + InternalProtocol.MAX_BATCH_OPERATIONS + " operations\n",
        new String(over.body(), StandardCharsets.UTF_8));
  }

  /** A batch from a node of another wire format is refused, naming both versions, and changes nothing. */
  @Test
  void aBatchOfAnotherWireFormatIs400NamingBothVersionsAndWritesNothing() {
    String key = nextKey();
    byte[] body = BatchOperations.encode(List.of(new BatchOperations.Operation(bytes(key),
        Record.live(node.node().clock().current() + 1, bytes("v"), 0)))).getBytes();
    body[0] = 7;
    HttpResponse<byte[]> refused = node.http.send("POST", InternalEndpoint.RECORD_BATCH.path(),
        HttpRequest.BodyPublishers.ofByteArray(body));

    assertEquals(400, refused.statusCode());
    assertEquals("wire format 7, this node speaks " + WireFormat.VERSION + "\n", Http.text(refused));
    assertEquals(404, node.http.get("/v0/entity?id=" + key).statusCode());
  }

  private static HttpResponse<byte[]> postBatch(List<BatchOperations.Operation> operations) {
    return node.http.send("POST", InternalEndpoint.RECORD_BATCH.path(),
        HttpRequest.BodyPublishers.ofByteArray(BatchOperations.encode(operations).getBytes()));
  }

  @Test
  void aRecordPutWithItsCountIsStoredAndReadBackWithIt() {
    String key = nextKey();
    long version = currentVersion();
    assertEquals(201, putRecord(key, version, "v", "2").statusCode());

    assertEquals(2, node.node().store().get(bytes(key)).replicas());
    HttpResponse<byte[]> read = node.http.get(path(key));
    assertEquals(200, read.statusCode());
    assertEquals("2", read.headers().firstValue(RecordHeaders.REPLICAS).orElseThrow());
    assertEquals(Long.toString(version), read.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
  }

  @Test
  void clientWritesStoreTheirFromAsTheCount() {
    String key = nextKey();
    node.http.putEntity(key, "v");
    assertEquals("1", node.http.get(path(key)).headers().firstValue(RecordHeaders.REPLICAS).orElseThrow(),
        "a PUT at the default from of a one-node cluster");
    assertEquals(202, node.http.delete("/v0/entity?id=" + Http.encode(key) + "&from=1").statusCode());
    Record tombstone = node.node().store().get(bytes(key));
    assertTrue(tombstone.tombstone());
    assertEquals(1, tombstone.replicas(), "a DELETE at from=1");
  }

  @Test
  void aNarrowerCopyOfTheSameRecordKeepsTheLargerCount() {
    String key = nextKey();
    long version = currentVersion();
    assertEquals(201, putRecord(key, version, "v", "3").statusCode());
    assertEquals(201, putRecord(key, version, "v", "1").statusCode());

    assertEquals("3", node.http.get(path(key)).headers().firstValue(RecordHeaders.REPLICAS).orElseThrow());
  }

  @Test
  void aMissingOrMalformedCountIs400AndStoresNothing() {
    String key = nextKey();
    for (String count : new String[] {null, "0", "-1", "65536", "two", ""}) {
      HttpResponse<byte[]> put = putRecord(key, currentVersion(), "v", count);
      assertEquals(400, put.statusCode(), "count " + count);
      assertTrue(Http.text(put).contains(RecordHeaders.REPLICAS), "count " + count + ": " + Http.text(put));
    }
    assertNull(node.node().store().get(bytes(key)));
  }

  private static HttpResponse<byte[]> putRecord(String key, long version, String value, String replicas) {
    List<String> headers = new ArrayList<>(List.of(ApiHeaders.VERSION, Long.toString(version),
        RecordHeaders.TOMBSTONE, "0", RecordHeaders.EXPIRES_AT, Long.toString(Record.NEVER)));
    if (replicas != null) {
      headers.addAll(List.of(RecordHeaders.REPLICAS, replicas));
    }
    return node.http.send("PUT", path(key), HttpRequest.BodyPublishers.ofString(value), headers.toArray(String[]::new));
  }

  /** A version of the node's clock format (milliseconds above a 16-bit counter), close to its own clock. */
  private static long currentVersion() {
    return System.currentTimeMillis() << 16;
  }

  private static String path(String key) {
    return InternalEndpoint.RECORD_GET.path() + "?id=" + Http.encode(key);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String nextKey() {
    return "internal-" + (keys++);
  }
}
