package io.quorumkv.replication;

import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.storage.Record;

/**
 * Digests, as a read compares replicas by them (Cassandra's digest reads): a record whose large
 * value was left out, standing for the record in everything but its value. Its value is one
 * placeholder array, told apart by identity, which never reaches a client or a write: the
 * {@link Coordinator} reads the value whole from the digest's replica when a digest is freshest,
 * and {@link ReadRepair} before it repairs with one. Only a live value of
 * {@link LargeValueSizes#LARGE_BYTES} or more is left out; smaller records and tombstones come
 * whole, so a read of them still repairs at once. At equal versions the whole record supersedes
 * its digest ({@link Record#supersedes} orders by the value's bytes), so a read whose replicas
 * agree answers from the one that sent the value.
 */
public final class LeftOutValues {
  private static final byte[] LEFT_OUT = new byte[0];

  private LeftOutValues() {
  }

  /** The placeholder a digest's value is: {@code wire.RecordLayout.readDigest} builds digests with it. */
  static byte[] placeholder() {
    return LEFT_OUT;
  }

  /** The record as a read that compares would have it: its digest when its value is large, else itself. */
  public static Record digestOf(Record record) {
    if (record == null || record.tombstone() || !LargeValueSizes.isLarge(record.value().length)) {
      return record;
    }
    return Record.live(record.version(), LEFT_OUT, record.expiresAt(), record.replicas());
  }

  /**
   * Whether {@code digest} stands for {@code record}: the same version, kind and expiry. Two values
   * written at one version (two coordinators in one clock tick) digest alike; anti-entropy, which
   * hashes values, settles them.
   */
  public static boolean isDigestOf(Record digest, Record record) {
    return record != null && digest.version() == record.version() && digest.tombstone() == record.tombstone()
        && digest.expiresAt() == record.expiresAt();
  }

  /** Whether the record is a digest, its value left out. */
  public static boolean isDigest(Record record) {
    return record != null && record.value() == LEFT_OUT;
  }
}
