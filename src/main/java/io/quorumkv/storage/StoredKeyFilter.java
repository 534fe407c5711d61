package io.quorumkv.storage;

/**
 * The keys a store may hold: a Bloom filter over every key stored before the store opened
 * ({@link #learned}, from a scan at open) and every key written since. A key it does not hold is
 * certainly absent, so writing it needs no read of the stored record first. Until the scan is
 * learned, or when sized for no keys, it holds every key. Past the keys it is sized for it holds
 * more and more keys it should not, which costs reads, never correctness. Thread-safe.
 */
final class StoredKeyFilter {
  /** About 1.2% false positives at the keys it is sized for, in 1.2 bytes a key. */
  private static final double BITS_PER_KEY = 9.6;

  private final BlockedBloomFilter keys;
  private volatile boolean learned;

  private StoredKeyFilter(BlockedBloomFilter keys) {
    this.keys = keys;
  }

  /** A filter for about {@code expectedKeys} keys; 0 for none, which holds every key. */
  static StoredKeyFilter sizedFor(long expectedKeys) {
    return new StoredKeyFilter(expectedKeys > 0 ? new BlockedBloomFilter(expectedKeys, BITS_PER_KEY) : null);
  }

  /**
   * Adds the key and answers whether it is certainly new: false when it may have been stored
   * before (or the filter has not learned the stored keys yet). One hashing of the key for both.
   * Call before the key's record is written, while no other write of the key can start; a key
   * added whose write then changes nothing only costs the filter a little precision.
   */
  boolean addIfNew(byte[] key) {
    if (keys == null) {
      return false;
    }
    boolean changed = keys.put(key);
    return changed && learned;
  }

  /** Adds a key stored before the filter was made; see {@link #learned}. */
  void add(byte[] key) {
    if (keys != null) {
      keys.put(key);
    }
  }

  /** Call once every key stored before any write since the filter was made has been {@link #add}ed. */
  void learned() {
    learned = keys != null;
  }

  /** Sized for no keys: holds every key, so there is nothing to learn. */
  boolean isOff() {
    return keys == null;
  }

  boolean isLearned() {
    return learned;
  }
}
