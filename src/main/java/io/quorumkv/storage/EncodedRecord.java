package io.quorumkv.storage;

import io.quorumkv.placement.Hashes;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A stored record as {@link RecordCodec} encoded it, read in place: a write compares an incoming
 * record with it, and takes its leaf, without copying its value out. A write of a large value over
 * a stored one then holds the stored bytes and the incoming record, not a decoded copy as well.
 */
final class EncodedRecord {
  private final byte[] bytes;
  private final int valueStart;
  private final boolean tombstone;
  private final long version;
  private final long expiresAt;
  private final int replicas;

  private EncodedRecord(byte[] bytes, int valueStart, boolean tombstone, long version, long expiresAt, int replicas) {
    this.bytes = bytes;
    this.valueStart = valueStart;
    this.tombstone = tombstone;
    this.version = version;
    this.expiresAt = expiresAt;
    this.replicas = replicas;
  }

  /** The record's header, read in place; IllegalArgumentException when the bytes are no record. */
  static EncodedRecord of(byte[] bytes) {
    int valueStart = RecordCodec.headerBytes(bytes);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    boolean tombstone = RecordCodec.isTombstone(bytes[RecordCodec.FLAGS_AT]);
    long version = buffer.getLong(RecordCodec.VERSION_AT);
    long expiresAt = buffer.getLong(RecordCodec.EXPIRES_AT);
    // Format 1 has no replica count: the value starts where format 2's count is.
    int replicas = valueStart == RecordCodec.HEADER_BYTES
        ? Short.toUnsignedInt(buffer.getShort(RecordCodec.REPLICAS_AT))
        : Record.EVERY_NODE;
    return new EncodedRecord(bytes, valueStart, tombstone, version, expiresAt, replicas);
  }

  int replicas() {
    return replicas;
  }

  /**
   * How this record and {@code incoming} order by {@link Record#supersedes}, the replica count
   * aside: positive when this one wins, negative when {@code incoming} does, 0 when they are the
   * same record (but perhaps for the count).
   */
  int compareTo(Record incoming) {
    if (version != incoming.version()) {
      return Long.compare(version, incoming.version());
    }
    if (tombstone != incoming.tombstone()) {
      return tombstone ? 1 : -1;
    }
    byte[] value = incoming.value();
    int byValue = Arrays.compareUnsigned(bytes, valueStart, bytes.length, value, 0, value.length);
    if (byValue != 0) {
      return byValue;
    }
    return Long.compare(expiryOrMax(expiresAt), expiryOrMax(incoming.expiresAt()));
  }

  /** The leaf this record has in anti-entropy's trees, as {@link RecordLeaf#of} the decoded record. */
  RecordLeaf leaf(byte[] key) {
    long valueHash = Hashes.fnv1a(bytes, valueStart, bytes.length);
    return new RecordLeaf(RecordDigest.leafOf(key, version, replicas, tombstone, expiresAt, valueHash), replicas);
  }

  /** The record, its value copied out of these bytes. */
  Record decode() {
    return new Record(version, tombstone, expiresAt, Arrays.copyOfRange(bytes, valueStart, bytes.length), replicas);
  }

  /** The record's encoding with its replica count set to {@code count}: these bytes, changed in place when they carry one. */
  byte[] withReplicas(int count) {
    if (valueStart != RecordCodec.HEADER_BYTES) {
      return RecordCodec.encode(decode().withReplicas(count));
    }
    ByteBuffer.wrap(bytes).putShort(RecordCodec.REPLICAS_AT, (short) count);
    return bytes;
  }

  private static long expiryOrMax(long expiresAt) {
    return expiresAt != Record.NEVER ? expiresAt : Long.MAX_VALUE;
  }
}
