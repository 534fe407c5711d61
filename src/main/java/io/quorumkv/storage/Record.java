package io.quorumkv.storage;

import java.util.Arrays;

/**
 * The replicated unit: what a replica stores for one key.
 *
 * @param version   from the coordinator's hybrid logical clock; the higher version wins
 * @param tombstone true for a delete; a tombstone carries no value
 * @param expiresAt absolute wall-clock millis after which the record reads as absent, 0 for never
 * @param value     the value bytes, empty for a tombstone
 * @param replicas  how many replicas the key was written to (the widest {@code from} seen, see
 *                  {@link #merge}): its home is the first {@code replicas} nodes of its rendezvous
 *                  order; {@link #EVERY_NODE} when unknown (a record stored before format 2)
 */
public record Record(long version, boolean tombstone, long expiresAt, byte[] value, int replicas) {
  public static final long NEVER = 0;
  /**
   * The replica count of a record whose home is every node of the topology: one whose count is
   * unknown. The largest count there is, so that the max rule of {@link #merge} keeps it.
   */
  public static final int EVERY_NODE = 0xFFFF;
  private static final byte[] NO_VALUE = new byte[0];

  public Record {
    if (replicas < 1 || replicas > EVERY_NODE) {
      throw new IllegalArgumentException("replicas must be between 1 and " + EVERY_NODE + ", got " + replicas);
    }
  }

  public static Record live(long version, byte[] value, long expiresAt, int replicas) {
    return new Record(version, false, expiresAt, value, replicas);
  }

  public static Record tombstone(long version, int replicas) {
    return new Record(version, true, NEVER, NO_VALUE, replicas);
  }

  /** A live record whose home is every node, such as one a tool or test puts into a store. */
  public static Record live(long version, byte[] value, long expiresAt) {
    return live(version, value, expiresAt, EVERY_NODE);
  }

  /** A tombstone whose home is every node, such as one a tool or test puts into a store. */
  public static Record tombstone(long version) {
    return tombstone(version, EVERY_NODE);
  }

  /** This record with another replica count. */
  public Record withReplicas(int replicas) {
    return new Record(version, tombstone, expiresAt, value, replicas);
  }

  public boolean expires() {
    return expiresAt != NEVER;
  }

  /** A record a client may see: not a tombstone and not expired at {@code nowMillis}. */
  public boolean isLive(long nowMillis) {
    return !tombstone && (!expires() || nowMillis < expiresAt);
  }

  /**
   * Whether this record wins over {@code other} for the same key. The higher version wins; equal
   * versions (two coordinators in the same clock tick) are settled the same way on every node:
   * a tombstone beats a value, then the greater value bytes, then the later expiry. The replica
   * count never decides.
   */
  public boolean supersedes(Record other) {
    if (other == null) {
      return true;
    }
    if (version != other.version) {
      return version > other.version;
    }
    if (tombstone != other.tombstone) {
      return tombstone;
    }
    int byValue = Arrays.compareUnsigned(value, other.value);
    if (byValue != 0) {
      return byValue > 0;
    }
    return expiryOrMax() > other.expiryOrMax();
  }

  /**
   * What a replica keeps when {@code incoming} meets {@code stored} (null for none): the winner by
   * {@link #supersedes}, carrying the larger replica count of the two. A key's home never shrinks,
   * and copies converge whatever order they meet in. Returns {@code stored} itself when it stays
   * as it is, and {@code incoming} itself when that is kept unchanged.
   */
  public static Record merge(Record stored, Record incoming) {
    if (stored == null) {
      return incoming;
    }
    if (incoming.supersedes(stored)) {
      return stored.replicas > incoming.replicas ? incoming.withReplicas(stored.replicas) : incoming;
    }
    // The stored record wins, or is the same record: it stays, unless the count grows.
    return incoming.replicas > stored.replicas ? stored.withReplicas(incoming.replicas) : stored;
  }

  private long expiryOrMax() {
    return expires() ? expiresAt : Long.MAX_VALUE;
  }
}
