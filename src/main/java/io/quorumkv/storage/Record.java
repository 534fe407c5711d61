package io.quorumkv.storage;

import java.util.Arrays;

/**
 * The replicated unit: what a replica stores for one key.
 *
 * @param version   from the coordinator's hybrid logical clock; the higher version wins
 * @param tombstone true for a delete; a tombstone carries no value
 * @param expiresAt absolute wall-clock millis after which the record reads as absent, 0 for never
 * @param value     the value bytes, empty for a tombstone
 */
public record Record(long version, boolean tombstone, long expiresAt, byte[] value) {
  public static final long NEVER = 0;
  private static final byte[] NO_VALUE = new byte[0];

  public static Record live(long version, byte[] value, long expiresAt) {
    return new Record(version, false, expiresAt, value);
  }

  public static Record tombstone(long version) {
    return new Record(version, true, NEVER, NO_VALUE);
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
   * a tombstone beats a value, then the greater value bytes, then the later expiry.
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

  private long expiryOrMax() {
    return expires() ? expiresAt : Long.MAX_VALUE;
  }
}
