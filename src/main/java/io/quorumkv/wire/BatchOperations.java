package io.quorumkv.wire;

import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an {@link Frame.Kind#OPERATIONS} frame: a replica batch's reads and writes, or a
 * restore's writes. Per operation: kind (1 read, 2 write) | key | for a write, the record
 * ({@link RecordLayout}).
 */
public final class BatchOperations {
  private static final byte READ = 1;
  private static final byte WRITE = 2;

  private BatchOperations() {
  }

  /** One operation of a batch: a read when {@code record} is null, else a write. */
  public record Operation(byte[] key, Record record) {
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
      RecordLayout.appendKey(out.current().appendByte(operation.isRead() ? READ : WRITE), operation.key());
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
      if (kind == READ) {
        operations.add(new Operation(key, null));
      } else if (kind == WRITE) {
        operations.add(new Operation(key, RecordLayout.readRecord(reader)));
      } else {
        throw new IllegalArgumentException("unknown operation kind " + kind);
      }
    }
    return operations;
  }
}
