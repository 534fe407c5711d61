package io.quorumkv.replication;

import io.quorumkv.replication.RecordBatchCodec.Answer;
import io.quorumkv.replication.RecordBatchCodec.Operation;
import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordBatchCodecTest {

  @Test
  void operationsRoundTripInOrder() {
    List<Operation> sent = List.of(
        new Operation(bytes("read me"), null),
        new Operation(bytes("k\u00e9y"), Record.live(42, bytes("value"), 1234)),
        new Operation(new byte[0], Record.tombstone(7)));
    List<Operation> received = RecordBatchCodec.decodeOperations(RecordBatchCodec.encodeOperations(sent));

    assertEquals(3, received.size());
    assertTrue(received.get(0).isRead());
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
      List<Operation> received = RecordBatchCodec.decodeOperations(RecordBatchCodec.encodeOperations(List.of(
          new Operation(bytes("a"), Record.live(1, bytes("v"), 0, replicas)),
          new Operation(bytes("b"), Record.tombstone(2, replicas)))));
      assertEquals(replicas, received.get(0).record().replicas());
      assertEquals(replicas, received.get(1).record().replicas());
      List<Answer> answers = RecordBatchCodec.decodeAnswers(RecordBatchCodec.encodeAnswers(List.of(
          Answer.of(Record.live(3, bytes("v"), 0, replicas)))));
      assertEquals(replicas, answers.get(0).record().replicas());
    }
  }

  @Test
  void aRecordWithoutReplicasIsRefusedNotMisread() {
    byte[] body = RecordBatchCodec.encodeOperations(List.of(new Operation(bytes("k"), Record.tombstone(1, 1)))).getBytes();
    int replicasAt = 1 + 4 + 1 + 8 + 1 + 8;
    assertEquals(1, body[replicasAt + 1], "the count is where the layout says");
    body[replicasAt + 1] = 0;
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> RecordBatchCodec.decodeOperations(Buffer.buffer(body)));
    assertTrue(refused.getMessage().contains("0 replicas"), refused.getMessage());
  }

  @Test
  void answersRoundTripInOrder() {
    List<Answer> answers = RecordBatchCodec.decodeAnswers(RecordBatchCodec.encodeAnswers(List.of(
        Answer.of((Record) null), Answer.of(Record.live(3, bytes("v"), 0)), Answer.of(WriteAnswer.STORED),
        Answer.failed("disk full"), Answer.of(WriteAnswer.superseded(99)))));

    assertEquals(5, answers.size());
    assertNull(answers.get(0).record());
    assertNull(answers.get(0).write());
    assertEquals(3, answers.get(1).record().version());
    assertTrue(answers.get(2).write().stored());
    assertEquals("disk full", answers.get(3).failure());
    assertFalse(answers.get(4).write().stored());
    assertEquals(99, answers.get(4).write().keptVersion());
  }

  /** A replica answering a read of a large value sends the value's own bytes: it holds the value once, not twice. */
  @Test
  void aLargeValueIsAnsweredWrappedNotCopied() {
    byte[] large = new byte[RecordBatchCodec.WRAPPED_VALUE_BYTES];
    large[large.length - 1] = 7;
    List<Answer> answers = List.of(Answer.of(Record.live(3, bytes("small"), 0)), Answer.of(Record.live(4, large, 0)),
        Answer.of(WriteAnswer.STORED));

    List<Buffer> parts = RecordBatchCodec.encodeAnswersInParts(answers);
    Buffer joined = Buffer.buffer();
    parts.forEach(joined::appendBuffer);

    assertEquals(RecordBatchCodec.encodeAnswers(answers), joined);
    assertTrue(parts.stream().anyMatch(part -> ((BufferInternal) part).getByteBuf().hasArray()
        && ((BufferInternal) part).getByteBuf().array() == large), "the large value's own array is one of the parts");
    List<Answer> decoded = RecordBatchCodec.decodeAnswers(joined);
    assertArrayEquals(large, decoded.get(1).record().value());
    assertTrue(decoded.get(2).write().stored());
  }

  @Test
  void malformedBodiesAreRefusedNotMisread() {
    byte[] whole = RecordBatchCodec.encodeOperations(List.of(new Operation(bytes("key"), Record.live(1, bytes("v"), 0))))
        .getBytes();
    for (int cut = 1; cut < whole.length; cut++) {
      Buffer truncated = Buffer.buffer(java.util.Arrays.copyOf(whole, cut));
      assertThrows(IllegalArgumentException.class, () -> RecordBatchCodec.decodeOperations(truncated), "cut at " + cut);
    }
    assertThrows(IllegalArgumentException.class, () -> RecordBatchCodec.decodeOperations(Buffer.buffer(new byte[] {9})));
    assertThrows(IllegalArgumentException.class,
        () -> RecordBatchCodec.decodeOperations(Buffer.buffer().appendByte((byte) 1).appendInt(-5)));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
