package io.quorumkv.wire;

import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an {@link Frame.Kind#OPERATIONS} frame: a replica batch's reads and writes, or a
 * restore's writes. Per operation: kind (1 read, 2 write, 3 digest read) | key | for a write, the
 * record ({@link RecordLayout}). A digest read is answered as a read, except that a large value is
 * left out of the answer: a coordinator asks one replica for the value and the others for digests.
 */
public final class BatchOperations {
  private static final byte READ = 1;
  private static final byte WRITE = 2;
  private static final byte DIGEST_READ = 3;

  private BatchOperations() {
  }

  /**
   * One operation of a batch: a read when {@code record} is null, else a write; {@code digest} for a
   * read whose answer may leave a large value out.
   */
  public record Operation(byte[] key, Record record, boolean digest) {
    public Operation {
      if (digest && record != null) {
        throw new IllegalArgumentException("a write cannot be a digest read");
      }
    }

    public Operation(byte[] key, Record record) {
      this(key, record, false);
    }

    /** A read that may leave a large value out of its answer. */
    public static Operation digestRead(byte[] key) {
      return new Operation(key, null, true);
    }

    public boolean isRead() {
      return record == null;
    }

    /** Bytes this operation takes in a payload. */
    public int encodedSize() {
      return 1 + RecordLayout.sizeOf(key) + (record == null ? 0 : RecordLayout.sizeOf(record));
    }
  }

  /** A payload holds more operations than the reader takes. */
  public static final class TooManyOperationsException extends RuntimeException {
    TooManyOperationsException(int maxOperations) {
      super("batch of more than " + maxOperations + " operations");
    }
  }

  /** The operations as one whole frame (id 0): a body of its own. */
  public static Buffer encode(List<Operation> operations) {
    return Frame.encode(Frame.Kind.OPERATIONS, 0, WireParts.join(payloadInParts(operations)));
  }

  /** The operations as a frame's payload, in parts ({@link WireParts}: large values wrapped, not copied). */
  public static List<Buffer> payloadInParts(List<Operation> operations) {
    WireParts out = new WireParts();
    for (Operation operation : operations) {
      byte kind = operation.isRead() ? (operation.digest() ? DIGEST_READ : READ) : WRITE;
      RecordLayout.appendKey(out.current().appendByte(kind), operation.key());
      if (!operation.isRead()) {
        RecordLayout.appendRecord(out, operation.record());
      }
    }
    return out.finish();
  }

  /** The operations of a body that is one {@link Frame.Kind#OPERATIONS} frame; IllegalArgumentException when it is malformed. */
  public static List<Operation> decode(Buffer body) {
    return decode(body, Integer.MAX_VALUE);
  }

  /** {@link #decode(Buffer)}, TooManyOperationsException beyond {@code maxOperations}. */
  public static List<Operation> decode(Buffer body, int maxOperations) {
    return decodePayload(Frame.decode(body, Frame.Kind.OPERATIONS).payload(), maxOperations);
  }

  /**
   * The operations of a frame's payload, decoding no further than one past {@code maxOperations}:
   * TooManyOperationsException when there are more; IllegalArgumentException when it is malformed.
   */
  public static List<Operation> decodePayload(Buffer payload, int maxOperations) {
    List<Operation> operations = new ArrayList<>();
    WireReader reader = new WireReader(payload);
    while (reader.hasMore()) {
      if (operations.size() == maxOperations) {
        throw new TooManyOperationsException(maxOperations);
      }
      byte kind = reader.readByte();
      byte[] key = RecordLayout.readKey(reader);
      if (kind == READ || kind == DIGEST_READ) {
        operations.add(new Operation(key, null, kind == DIGEST_READ));
      } else if (kind == WRITE) {
        operations.add(new Operation(key, RecordLayout.readRecord(reader)));
      } else {
        throw new IllegalArgumentException("unknown operation kind " + kind);
      }
    }
    return operations;
  }
}
