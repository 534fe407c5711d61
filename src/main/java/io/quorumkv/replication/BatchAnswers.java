package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.RecordLayout;
import io.quorumkv.wire.WireParts;
import io.quorumkv.wire.WireReader;
import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an {@link Frame.Kind#ANSWERS} frame: one answer per operation of a replica batch
 * ({@code wire.BatchOperations}), in its order. Integers are big-endian.
 * <pre>
 * answer: kind (1 absent, 2 record, 3 stored, 4 failed, 5 superseded, 6 refused, 7 digest) | for a
 *         record: the record ({@code wire.RecordLayout}) | for a digest: the record's digest
 *         ({@link LeftOutValues}) | for a failure or refusal: message length (int) | UTF-8 message
 *         | for superseded: the kept version (long)
 * </pre>
 */
public final class BatchAnswers {
  private static final byte ABSENT = 1;
  private static final byte RECORD = 2;
  private static final byte STORED = 3;
  private static final byte FAILED = 4;
  private static final byte SUPERSEDED = 5;
  private static final byte REFUSED = 6;
  private static final byte DIGEST = 7;
  /** An answer's bytes beyond its value: its kind and record header, or a failure message (short, ours). */
  static final int MAX_ANSWER_OVERHEAD_BYTES = 4096;

  private BatchAnswers() {
  }

  /**
   * One operation's answer: to a read, a record (null when the replica holds none); to a write,
   * whether it was stored; or a failure message, {@code refused} when the replica will never take
   * the operation (a version too far ahead of its clock), so that retrying it is pointless.
   */
  public record Answer(Record record, WriteAnswer write, String failure, boolean refused) {
    public static Answer of(Record record) {
      return new Answer(record, null, null, false);
    }

    public static Answer of(WriteAnswer write) {
      return new Answer(null, write, null, false);
    }

    public static Answer failed(String message) {
      return new Answer(null, null, message, false);
    }

    public static Answer refused(String message) {
      return new Answer(null, null, message, true);
    }
  }

  /** The answers as one whole frame (id 0): the body answering a {@code RECORD_BATCH}. */
  public static Buffer encode(List<Answer> answers) {
    return Frame.encode(Frame.Kind.ANSWERS, 0, WireParts.join(payloadInParts(answers)));
  }

  /**
   * The answers as a frame's payload, in parts ({@link WireParts}): a replica answering a read of a
   * large value holds it once, not twice.
   */
  public static List<Buffer> payloadInParts(List<Answer> answers) {
    WireParts out = new WireParts();
    for (Answer answer : answers) {
      Buffer current = out.current();
      if (answer.failure() != null) {
        byte[] message = answer.failure().getBytes(StandardCharsets.UTF_8);
        current.appendByte(answer.refused() ? REFUSED : FAILED).appendInt(message.length).appendBytes(message);
      } else if (answer.write() != null) {
        if (answer.write().stored()) {
          current.appendByte(STORED);
        } else {
          current.appendByte(SUPERSEDED).appendLong(answer.write().keptVersion());
        }
      } else if (answer.record() == null) {
        current.appendByte(ABSENT);
      } else if (LeftOutValues.isDigest(answer.record())) {
        RecordLayout.appendDigest(current.appendByte(DIGEST), answer.record());
      } else {
        current.appendByte(RECORD);
        RecordLayout.appendRecord(out, answer.record());
      }
    }
    return out.finish();
  }

  /** The answers of a body that is one {@link Frame.Kind#ANSWERS} frame; IllegalArgumentException when it is malformed. */
  public static List<Answer> decode(Buffer body) {
    return decodePayload(Frame.decode(body, Frame.Kind.ANSWERS).payload());
  }

  /** The answers of a frame's payload; IllegalArgumentException when it is malformed. */
  public static List<Answer> decodePayload(Buffer payload) {
    List<Answer> answers = new ArrayList<>();
    WireReader reader = new WireReader(payload);
    while (reader.hasMore()) {
      byte kind = reader.readByte();
      answers.add(switch (kind) {
        case ABSENT -> Answer.of((Record) null);
        case RECORD -> Answer.of(RecordLayout.readRecord(reader));
        case STORED -> Answer.of(WriteAnswer.STORED);
        case SUPERSEDED -> Answer.of(WriteAnswer.superseded(reader.readLong()));
        case FAILED -> Answer.failed(new String(reader.readBytes(), StandardCharsets.UTF_8));
        case REFUSED -> Answer.refused(new String(reader.readBytes(), StandardCharsets.UTF_8));
        case DIGEST -> Answer.of(RecordLayout.readDigest(reader, LeftOutValues.placeholder()));
        default -> throw new IllegalArgumentException("unknown answer kind " + kind);
      });
    }
    return answers;
  }
}
