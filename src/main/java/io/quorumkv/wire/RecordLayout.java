package io.quorumkv.wire;

import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;

/**
 * The one layout of a record on the wire, written here and nowhere else. Big-endian:
 * <pre>
 * key:    length (int) | bytes
 * record: version (long) | tombstone (byte 0/1) | expires at (long) | replicas (unsigned short, 1 to
 *         Record.EVERY_NODE) | value length (int) | value
 * entry:  key | record
 * digest: a record's header alone (its value length kept, its value left out)
 * </pre>
 * The disk's layout is {@code storage.RecordCodec}'s, a format of its own.
 */
public final class RecordLayout {
  /** Values at least this large (a large value) go out wrapped rather than copied ({@link WireParts}). */
  public static final int WRAPPED_VALUE_BYTES = LargeValueSizes.LARGE_BYTES;
  /** A record's largest bytes on the wire beyond its value: its key (bounded by the request line) and fixed fields. */
  private static final int MAX_OVERHEAD_BYTES = 64 * 1024;
  private static final int RECORD_HEADER_BYTES = 8 + 1 + 8 + 2 + 4;

  private RecordLayout() {
  }

  /** The largest record frame payload a reader takes when values may be up to {@code maxValueBytes}. */
  public static int maxPayloadBytes(long maxValueBytes) {
    return (int) Math.min(Integer.MAX_VALUE - MAX_OVERHEAD_BYTES, maxValueBytes) + MAX_OVERHEAD_BYTES;
  }

  /** A key's bytes on the wire. */
  public static int sizeOf(byte[] key) {
    return 4 + key.length;
  }

  /** A record's bytes on the wire. */
  public static int sizeOf(Record record) {
    return RECORD_HEADER_BYTES + record.value().length;
  }

  public static Buffer appendKey(Buffer out, byte[] key) {
    return out.appendInt(key.length).appendBytes(key);
  }

  /** The record, its value copied into {@code out}. */
  public static Buffer appendRecord(Buffer out, Record record) {
    return appendHeader(out, record).appendBytes(record.value());
  }

  /** The record, its value wrapped as it is when large. */
  public static void appendRecord(WireParts out, Record record) {
    if (record.value().length < WRAPPED_VALUE_BYTES) {
      appendRecord(out.current(), record);
    } else {
      appendHeader(out.current(), record);
      out.wrap(record.value());
    }
  }

  /** The record's header alone: a digest, its value left out. */
  public static Buffer appendDigest(Buffer out, Record record) {
    return appendHeader(out, record);
  }

  /** A digest as a live record whose value is {@code leftOut}, a placeholder the caller recognizes. */
  public static Record readDigest(WireReader in, byte[] leftOut) {
    long version = in.readLong();
    boolean tombstone = in.readByte() != 0;
    long expiresAt = in.readLong();
    int replicas = in.readUnsignedShort();
    in.readInt();
    if (tombstone || replicas == 0) {
      throw new IllegalArgumentException("digest of a tombstone or with 0 replicas at byte " + in.position());
    }
    return Record.live(version, leftOut, expiresAt, replicas);
  }

  public static Buffer appendEntry(Buffer out, byte[] key, Record record) {
    return appendRecord(appendKey(out, key), record);
  }

  public static byte[] readKey(WireReader in) {
    return in.readBytes();
  }

  public static Record readRecord(WireReader in) {
    long version = in.readLong();
    boolean tombstone = in.readByte() != 0;
    long expiresAt = in.readLong();
    int replicas = in.readUnsignedShort();
    if (replicas == 0) {
      throw new IllegalArgumentException("record with 0 replicas at byte " + (in.position() - 2));
    }
    byte[] value = in.readBytes();
    return tombstone ? Record.tombstone(version, replicas) : Record.live(version, value, expiresAt, replicas);
  }

  private static Buffer appendHeader(Buffer out, Record record) {
    return out.appendLong(record.version()).appendByte(record.tombstone() ? (byte) 1 : 0)
        .appendLong(record.expiresAt()).appendUnsignedShort(record.replicas()).appendInt(record.value().length);
  }
}
