package io.quorumkv.storage;

import io.quorumkv.placement.Hashes;

/**
 * Where a key falls in anti-entropy's hash trees and what its record contributes there. A
 * segment is a fixed slice of the key-hash space; a leaf digest covers everything that tells
 * two copies apart (version, tombstone, expiry, replica count, value), so copies digest equal
 * exactly when a replica would keep either unchanged.
 */
public final class RecordDigest {
  public static final int SEGMENT_BITS = 16;
  public static final int SEGMENTS = 1 << SEGMENT_BITS;
  private static final long SEGMENT_SALT = 0x5bd1e9955bd1e995L;

  private RecordDigest() {
  }

  public static int segmentOf(byte[] key) {
    return (int) (Hashes.mix(Hashes.fnv1a(key) ^ SEGMENT_SALT) >>> (Long.SIZE - SEGMENT_BITS));
  }

  public static long leafOf(byte[] key, Record record) {
    return leafOf(key, record.version(), record.replicas(), record.tombstone(), record.expiresAt(),
        Hashes.fnv1a(record.value()));
  }

  /** {@link #leafOf(byte[], Record)} from a record's fields and its value's {@link Hashes#fnv1a}. */
  static long leafOf(byte[] key, long version, int replicas, boolean tombstone, long expiresAt, long valueHash) {
    long h = Hashes.mix(Hashes.fnv1a(key));
    h = Hashes.mix(h ^ version);
    h = Hashes.mix(h ^ ((long) replicas << 1 | (tombstone ? 1 : 0)));
    h = Hashes.mix(h ^ expiresAt);
    return Hashes.mix(h ^ valueHash);
  }
}
