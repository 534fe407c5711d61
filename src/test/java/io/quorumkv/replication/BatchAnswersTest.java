package io.quorumkv.replication;

import io.quorumkv.replication.BatchAnswers.Answer;
import io.quorumkv.storage.Record;
import io.quorumkv.wire.RecordLayout;
import io.quorumkv.wire.WireParts;
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

class BatchAnswersTest {

  @Test
  void answersRoundTripInOrder() {
    List<Answer> answers = BatchAnswers.decode(BatchAnswers.encode(List.of(
        Answer.of((Record) null), Answer.of(Record.live(3, bytes("v"), 0)), Answer.of(WriteAnswer.STORED),
        Answer.failed("disk full"), Answer.of(WriteAnswer.superseded(99)), Answer.refused("too far ahead"))));

    assertEquals(6, answers.size());
    assertNull(answers.get(0).record());
    assertNull(answers.get(0).write());
    assertEquals(3, answers.get(1).record().version());
    assertTrue(answers.get(2).write().stored());
    assertEquals("disk full", answers.get(3).failure());
    assertFalse(answers.get(3).refused());
    assertFalse(answers.get(4).write().stored());
    assertEquals(99, answers.get(4).write().keptVersion());
    assertEquals("too far ahead", answers.get(5).failure());
    assertTrue(answers.get(5).refused());
  }

  /** A digest answer carries everything of the record but its value's bytes, and decodes as a digest. */
  @Test
  void aDigestLeavesTheLargeValueOutAndKeepsTheRest() {
    byte[] large = new byte[RecordLayout.WRAPPED_VALUE_BYTES];
    Record whole = Record.live(5, large, 1_234, 2);
    Record small = Record.live(6, bytes("small"), 0, 3);
    Buffer encoded = BatchAnswers.encode(List.of(Answer.of(LeftOutValues.digestOf(whole)),
        Answer.of(LeftOutValues.digestOf(small)), Answer.of(LeftOutValues.digestOf(Record.tombstone(7, 3)))));
    List<Answer> answers = BatchAnswers.decode(encoded);

    assertTrue(encoded.length() < 200, encoded.length() + " bytes");
    Record digest = answers.get(0).record();
    assertTrue(LeftOutValues.isDigest(digest));
    assertEquals(List.of(5L, 1_234L, 2L), List.of(digest.version(), digest.expiresAt(), (long) digest.replicas()));
    assertTrue(whole.supersedes(digest), "at one version the whole record wins over its digest");
    assertFalse(LeftOutValues.isDigest(answers.get(1).record()), "a small value comes whole");
    assertEquals("small", new String(answers.get(1).record().value(), StandardCharsets.UTF_8));
    assertTrue(answers.get(2).record().tombstone());
  }

  @Test
  void everyAnsweredRecordCarriesItsReplicaCount() {
    for (int replicas : new int[] {1, 2, 300, Record.EVERY_NODE}) {
      List<Answer> answers = BatchAnswers.decode(BatchAnswers.encode(List.of(
          Answer.of(Record.live(3, bytes("v"), 0, replicas)))));
      assertEquals(replicas, answers.get(0).record().replicas());
    }
  }

  /** A replica answering a read of a large value sends the value's own bytes: it holds the value once, not twice. */
  @Test
  void aLargeValueIsAnsweredWrappedNotCopied() {
    byte[] large = new byte[RecordLayout.WRAPPED_VALUE_BYTES];
    large[large.length - 1] = 7;
    List<Answer> answers = List.of(Answer.of(Record.live(3, bytes("small"), 0)), Answer.of(Record.live(4, large, 0)),
        Answer.of(WriteAnswer.STORED));

    List<Buffer> parts = BatchAnswers.payloadInParts(answers);

    assertTrue(parts.stream().anyMatch(part -> ((BufferInternal) part).getByteBuf().hasArray()
        && ((BufferInternal) part).getByteBuf().array() == large), "the large value's own array is one of the parts");
    List<Answer> decoded = BatchAnswers.decodePayload(WireParts.join(parts));
    assertArrayEquals(large, decoded.get(1).record().value());
    assertTrue(decoded.get(2).write().stored());
  }

  @Test
  void malformedAnswersAreRefusedNotMisread() {
    byte[] whole = BatchAnswers.encode(List.of(Answer.of(Record.live(1, bytes("v"), 0)), Answer.failed("x")))
        .getBytes();
    for (int cut = 1; cut < whole.length; cut++) {
      Buffer truncated = Buffer.buffer(java.util.Arrays.copyOf(whole, cut));
      assertThrows(IllegalArgumentException.class, () -> BatchAnswers.decode(truncated), "cut at " + cut);
    }
    assertThrows(IllegalArgumentException.class, () -> BatchAnswers.decodePayload(Buffer.buffer(new byte[] {9})));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
