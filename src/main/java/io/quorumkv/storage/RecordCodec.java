package io.quorumkv.storage;

import java.nio.ByteBuffer;

/**
 * The one binary encoding of a {@link Record}, used as the RocksDB value. Big-endian:
 *
 * <pre>
 * offset size field
 *      0    1 format, always 1
 *      1    1 flags: bit 0 set for a tombstone
 *      2    8 version (hybrid logical clock)
 *     10    8 expiresAt, absolute wall-clock millis, 0 for never
 *     18    n value bytes (n = 0 for a tombstone)
 * </pre>
 */
public final class RecordCodec {
  static final byte FORMAT = 1;
  static final int HEADER_BYTES = 18;
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
        .put(value)
        .array();
  }

  public static Record decode(byte[] bytes) {
    if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT) {
      throw new IllegalArgumentException("not a quorumkv record (format " + (bytes.length > 0 ? bytes[0] : -1) + ")");
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    buffer.position(1);
    boolean tombstone = (buffer.get() & TOMBSTONE) != 0;
    long version = buffer.getLong();
    long expiresAt = buffer.getLong();
    byte[] value = new byte[buffer.remaining()];
    buffer.get(value);
    return new Record(version, tombstone, expiresAt, value);
  }
}
