package io.quorumkv.replication;

import io.netty.buffer.Unpooled;
import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary bodies of replica batches ({@code peer.InternalEndpoint.RECORD_BATCH}, and each frame
 * of a batch stream): a request is a sequence of reads and writes, its answer one entry per
 * operation in the same order. Integers are big-endian.
 * <pre>
 * operation: kind (1 read, 2 write) | key length (int) | key | for a write: record
 * answer:    kind (1 absent, 2 record, 3 stored, 4 failed, 5 superseded, 6 refused) | for a record: record
 *            | for a failure or refusal: message length (int) | UTF-8 message | for superseded: the kept version (long)
 * record:    version (long) | tombstone (byte 0/1) | expires at (long) | replicas (unsigned short, 1 to
 *            Record.EVERY_NODE) | value length (int) | value
 * </pre>
 */
public final class RecordBatchCodec {
  private static final byte READ = 1;
  private static final byte WRITE = 2;
  private static final byte ABSENT = 1;
  private static final byte RECORD = 2;
  private static final byte STORED = 3;
  private static final byte FAILED = 4;
  private static final byte SUPERSEDED = 5;
  private static final byte REFUSED = 6;
  private static final int RECORD_HEADER_BYTES = 8 + 1 + 8 + 2 + 4;
  /** An answer's bytes beyond its value: its kind and record header, or a failure message (short, ours). */
  static final int MAX_ANSWER_OVERHEAD_BYTES = 4096;
  /** Values at least this large go out wrapped rather than copied into the batch. */
  static final int WRAPPED_VALUE_BYTES = 64 * 1024;

  private RecordBatchCodec() {
  }

  /** One operation of a batch: a read when {@code record} is null, else a write. */
  public record Operation(byte[] key, Record record) {
    public boolean isRead() {
      return record == null;
    }

    /** Bytes this operation takes in a request. */
    int encodedSize() {
      return 1 + 4 + key.length + (record == null ? 0 : RECORD_HEADER_BYTES + record.value().length);
    }
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

  public static Buffer encodeOperations(List<Operation> operations) {
    Buffer out = Buffer.buffer(operations.stream().mapToInt(Operation::encodedSize).sum());
    for (Operation operation : operations) {
      out.appendByte(operation.isRead() ? READ : WRITE).appendInt(operation.key().length).appendBytes(operation.key());
      if (!operation.isRead()) {
        appendRecord(out, operation.record());
      }
    }
    return out;
  }

  /**
   * {@link #encodeOperations} as a list of parts to be sent one after the other: values of
   * {@link #WRAPPED_VALUE_BYTES} or more are wrapped as they are instead of copied, so that a
   * large value sent to several replicas takes no more heap than it already did.
   */
  public static List<Buffer> encodeOperationsInParts(List<Operation> operations) {
    List<Buffer> parts = new ArrayList<>();
    Buffer out = Buffer.buffer();
    for (Operation operation : operations) {
      out.appendByte(operation.isRead() ? READ : WRITE).appendInt(operation.key().length).appendBytes(operation.key());
      if (operation.isRead()) {
        continue;
      }
      Record record = operation.record();
      if (record.value().length < WRAPPED_VALUE_BYTES) {
        appendRecord(out, record);
      } else {
        appendRecordHeader(out, record);
        parts.add(out);
        parts.add(BufferInternal.buffer(Unpooled.wrappedBuffer(record.value())));
        out = Buffer.buffer();
      }
    }
    if (out.length() > 0 || parts.isEmpty()) {
      parts.add(out);
    }
    return parts;
  }

  /** A request body holds more operations than the reader takes. */
  public static final class TooManyOperationsException extends RuntimeException {
    TooManyOperationsException(int maxOperations) {
      super("batch of more than " + maxOperations + " operations");
    }
  }

  /** The operations of a request body; IllegalArgumentException when it is malformed. */
  public static List<Operation> decodeOperations(Buffer in) {
    return decodeOperations(in, Integer.MAX_VALUE);
  }

  /**
   * The operations of a request body, decoding no further than one past {@code maxOperations}:
   * TooManyOperationsException when there are more; IllegalArgumentException when it is malformed.
   */
  public static List<Operation> decodeOperations(Buffer in, int maxOperations) {
    List<Operation> operations = new ArrayList<>();
    Reader reader = new Reader(in);
    while (reader.hasMore()) {
      if (operations.size() == maxOperations) {
        throw new TooManyOperationsException(maxOperations);
      }
      byte kind = reader.readByte();
      byte[] key = reader.readBytes();
      if (kind == READ) {
        operations.add(new Operation(key, null));
      } else if (kind == WRITE) {
        operations.add(new Operation(key, reader.readRecord()));
      } else {
        throw new IllegalArgumentException("unknown operation kind " + kind);
      }
    }
    return operations;
  }

  public static Buffer encodeAnswers(List<Answer> answers) {
    List<Buffer> parts = encodeAnswersInParts(answers);
    if (parts.size() == 1) {
      return parts.get(0); // no large value: already one buffer, not copied again
    }
    Buffer out = Buffer.buffer();
    parts.forEach(out::appendBuffer);
    return out;
  }

  /**
   * {@link #encodeAnswers} as a list of parts to be sent one after the other: values of
   * {@link #WRAPPED_VALUE_BYTES} or more are wrapped as they are instead of copied, so that a
   * replica answering a read of a large value holds it once, not twice.
   */
  public static List<Buffer> encodeAnswersInParts(List<Answer> answers) {
    List<Buffer> parts = new ArrayList<>();
    Buffer out = Buffer.buffer();
    for (Answer answer : answers) {
      if (answer.failure() != null) {
        byte[] message = answer.failure().getBytes(StandardCharsets.UTF_8);
        out.appendByte(answer.refused() ? REFUSED : FAILED).appendInt(message.length).appendBytes(message);
      } else if (answer.write() != null) {
        if (answer.write().stored()) {
          out.appendByte(STORED);
        } else {
          out.appendByte(SUPERSEDED).appendLong(answer.write().keptVersion());
        }
      } else if (answer.record() == null) {
        out.appendByte(ABSENT);
      } else if (answer.record().value().length < WRAPPED_VALUE_BYTES) {
        appendRecord(out.appendByte(RECORD), answer.record());
      } else {
        appendRecordHeader(out.appendByte(RECORD), answer.record());
        parts.add(out);
        parts.add(BufferInternal.buffer(Unpooled.wrappedBuffer(answer.record().value())));
        out = Buffer.buffer();
      }
    }
    if (out.length() > 0 || parts.isEmpty()) {
      parts.add(out);
    }
    return parts;
  }

  /** The answers of a response body; IllegalArgumentException when it is malformed. */
  public static List<Answer> decodeAnswers(Buffer in) {
    List<Answer> answers = new ArrayList<>();
    Reader reader = new Reader(in);
    while (reader.hasMore()) {
      byte kind = reader.readByte();
      answers.add(switch (kind) {
        case ABSENT -> Answer.of((Record) null);
        case RECORD -> Answer.of(reader.readRecord());
        case STORED -> Answer.of(WriteAnswer.STORED);
        case SUPERSEDED -> Answer.of(WriteAnswer.superseded(reader.readLong()));
        case FAILED -> Answer.failed(new String(reader.readBytes(), StandardCharsets.UTF_8));
        case REFUSED -> Answer.refused(new String(reader.readBytes(), StandardCharsets.UTF_8));
        default -> throw new IllegalArgumentException("unknown answer kind " + kind);
      });
    }
    return answers;
  }

  private static void appendRecord(Buffer out, Record record) {
    appendRecordHeader(out, record).appendBytes(record.value());
  }

  private static Buffer appendRecordHeader(Buffer out, Record record) {
    return out.appendLong(record.version()).appendByte(record.tombstone() ? (byte) 1 : 0)
        .appendLong(record.expiresAt()).appendUnsignedShort(record.replicas()).appendInt(record.value().length);
  }

  /** Reads a body front to back, refusing to read past its end. */
  private static final class Reader {
    private final Buffer in;
    private int position;

    Reader(Buffer in) {
      this.in = in;
    }

    boolean hasMore() {
      return position < in.length();
    }

    byte readByte() {
      need(1);
      return in.getByte(position++);
    }

    long readLong() {
      need(8);
      long value = in.getLong(position);
      position += 8;
      return value;
    }

    int readUnsignedShort() {
      need(2);
      int value = in.getUnsignedShort(position);
      position += 2;
      return value;
    }

    byte[] readBytes() {
      need(4);
      int length = in.getInt(position);
      position += 4;
      if (length < 0) {
        throw new IllegalArgumentException("negative length " + length);
      }
      need(length);
      byte[] bytes = in.getBytes(position, position + length);
      position += length;
      return bytes;
    }

    Record readRecord() {
      long version = readLong();
      boolean tombstone = readByte() != 0;
      long expiresAt = readLong();
      int replicas = readUnsignedShort();
      if (replicas == 0) {
        throw new IllegalArgumentException("record with 0 replicas at byte " + (position - 2));
      }
      byte[] value = readBytes();
      return tombstone ? Record.tombstone(version, replicas) : Record.live(version, value, expiresAt, replicas);
    }

    private void need(int bytes) {
      if (in.length() - position < bytes) {
        throw new IllegalArgumentException("batch body ends early at byte " + position);
      }
    }
  }
}
