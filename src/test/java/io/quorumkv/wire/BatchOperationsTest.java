package io.quorumkv.wire;

import io.quorumkv.storage.Record;
import io.quorumkv.wire.BatchOperations.Operation;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BatchOperationsTest {

  @Test
  void operationsRoundTripInOrder() {
    List<Operation> sent = List.of(
        new Operation(bytes("read me"), null),
        new Operation(bytes("k\u00e9y"), Record.live(42, bytes("value"), 1234)),
        new Operation(new byte[0], Record.tombstone(7)),
        Operation.digestRead(bytes("compare me")));
    List<Operation> received = BatchOperations.decode(BatchOperations.encode(sent));

    assertEquals(4, received.size());
    assertTrue(received.get(0).isRead());
    assertFalse(received.get(0).digest());
    assertTrue(received.get(3).isRead());
    assertTrue(received.get(3).digest());
    assertArrayEquals(bytes("compare me"), received.get(3).key());
    assertArrayEquals(bytes("read me"), received.get(0).key());
    assertArrayEquals(bytes("k\u00e9y"), received.get(1).key());
    assertEquals(42, received.get(1).record().version());
    assertEquals(1234, received.get(1).record().expiresAt());
    assertArrayEquals(bytes("value"), received.get(1).record().value());
    assertTrue(received.get(2).record().tombstone());
    assertEquals(7, received.get(2).record().version());
  }

  @Test
  void everyRecordCarriesItsReplicaCount() {
    for (int replicas : new int[] {1, 2, 300, Record.EVERY_NODE}) {
      List<Operation> received = BatchOperations.decode(BatchOperations.encode(List.of(
          new Operation(bytes("a"), Record.live(1, bytes("v"), 0, replicas)),
          new Operation(bytes("b"), Record.tombstone(2, replicas)))));
      assertEquals(replicas, received.get(0).record().replicas());
      assertEquals(replicas, received.get(1).record().replicas());
    }
  }

  @Test
  void aRecordWithoutReplicasIsRefusedNotMisread() {
    byte[] body = BatchOperations.encode(List.of(new Operation(bytes("k"), Record.tombstone(1, 1)))).getBytes();
    int replicasAt = Frame.HEADER_BYTES + 1 + 4 + 1 + 8 + 1 + 8;
    assertEquals(1, body[replicasAt + 1], "the count is where the layout says");
    body[replicasAt + 1] = 0;
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> BatchOperations.decode(Buffer.buffer(body)));
    assertTrue(refused.getMessage().contains("0 replicas"), refused.getMessage());
  }

  /** A coordinator writing a large value to several replicas sends the value's own bytes, never a copy. */
  @Test
  void aLargeValueIsSentWrappedNotCopied() {
    byte[] large = new byte[RecordLayout.WRAPPED_VALUE_BYTES];
    large[large.length - 1] = 7;
    List<Operation> operations = List.of(new Operation(bytes("small"), Record.live(3, bytes("v"), 0)),
        new Operation(bytes("large"), Record.live(4, large, 0)), new Operation(bytes("read"), null));

    List<Buffer> parts = BatchOperations.payloadInParts(operations);

    assertTrue(parts.stream().anyMatch(part -> ((BufferInternal) part).getByteBuf().hasArray()
        && ((BufferInternal) part).getByteBuf().array() == large), "the large value's own array is one of the parts");
    List<Operation> decoded = BatchOperations.decodePayload(WireParts.join(parts), 64);
    assertArrayEquals(large, decoded.get(1).record().value());
    assertTrue(decoded.get(2).isRead());
    assertEquals(BatchOperations.encode(operations), WireParts.join(Frame.encode(Frame.Kind.OPERATIONS, 0, parts)));
  }

  @Test
  void moreOperationsThanTheReaderTakesAreRefused() {
    Buffer body = BatchOperations.encode(List.of(new Operation(bytes("a"), null), new Operation(bytes("b"), null)));
    assertEquals(2, BatchOperations.decode(body, 2).size());
    assertThrows(BatchOperations.TooManyOperationsException.class, () -> BatchOperations.decode(body, 1));
  }

  @Test
  void malformedBodiesAreRefusedNotMisread() {
    byte[] whole = BatchOperations.encode(List.of(new Operation(bytes("key"), Record.live(1, bytes("v"), 0))))
        .getBytes();
    for (int cut = 1; cut < whole.length; cut++) {
      Buffer truncated = Buffer.buffer(java.util.Arrays.copyOf(whole, cut));
      assertThrows(IllegalArgumentException.class, () -> BatchOperations.decode(truncated), "cut at " + cut);
    }
    assertThrows(IllegalArgumentException.class, () -> BatchOperations.decodePayload(Buffer.buffer(new byte[] {9}), 64));
    assertThrows(IllegalArgumentException.class,
        () -> BatchOperations.decodePayload(Buffer.buffer().appendByte((byte) 1).appendInt(-5), 64));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
