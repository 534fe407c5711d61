package io.quorumkv.storage;

import java.nio.ByteBuffer;

/**
 * The one binary encoding of a {@link Record}, used as the RocksDB value and in hints.
 * Big-endian; format 2 is written:
 *
 * <pre>
 * offset size field
 *      0    1 format, 2
 *      1    1 flags: bit 0 set for a tombstone
 *      2    8 version (hybrid logical clock)
 *     10    8 expiresAt, absolute wall-clock millis, 0 for never
 *     18    2 replicas, unsigned: the key's home is the first this many nodes of its rendezvous
 *              order ({@link Record#EVERY_NODE}: every node)
 *     20    n value bytes (n = 0 for a tombstone)
 * </pre>
 *
 * Format 1, written before replica counts were kept, is the same without the replicas field
 * (the value starts at 18); it still decodes, with replicas {@link Record#EVERY_NODE}.
 */
public final class RecordCodec {
  static final byte FORMAT = 2;
  static final int HEADER_BYTES = 20;
  static final byte FORMAT_1 = 1;
  static final int FORMAT_1_HEADER_BYTES = 18;
  static final int FLAGS_AT = 1;
  static final int VERSION_AT = 2;
  static final int EXPIRES_AT = 10;
  static final int REPLICAS_AT = 18;
  private static final byte TOMBSTONE = 1;

  private RecordCodec() {
  }

  public static byte[] encode(Record record) {
    byte[] value = record.value();
    return ByteBuffer.allocate(HEADER_BYTES + value.length)
        .put(FORMAT)
        .put(record.tombstone() ? TOMBSTONE : 0)
        .putLong(record.version())
        .putLong(record.expiresAt())
        .putShort((short) record.replicas())
        .put(value)
        .array();
  }

  public static Record decode(byte[] bytes) {
    return EncodedRecord.of(bytes).decode();
  }

  /** Where the value starts in an encoded record, by its format; IllegalArgumentException when it is none. */
  static int headerBytes(byte[] bytes) {
    byte format = bytes.length > 0 ? bytes[0] : -1;
    int headerBytes = format == FORMAT ? HEADER_BYTES : format == FORMAT_1 ? FORMAT_1_HEADER_BYTES : -1;
    if (headerBytes < 0 || bytes.length < headerBytes) {
      throw new IllegalArgumentException("not a quorumkv record (format " + format + ", " + bytes.length + " bytes)");
    }
    return headerBytes;
  }

  static boolean isTombstone(byte flags) {
    return (flags & TOMBSTONE) != 0;
  }
}
