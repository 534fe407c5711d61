package io.quorumkv.placement;

/**
 * The 64-bit hashes placement and anti-entropy agree on: FNV-1a over bytes, spread by
 * MurmurHash3's finaliser. Not cryptographic; stable across nodes and versions, so never change them.
 */
public final class Hashes {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private Hashes() {
  }

  public static long fnv1a(byte[] bytes) {
    return fnv1a(bytes, 0, bytes.length);
  }

  /** {@link #fnv1a(byte[])} of {@code bytes[from, to)}. */
  public static long fnv1a(byte[] bytes, int from, int to) {
    long hash = FNV_OFFSET;
    for (int i = from; i < to; i++) {
      hash ^= bytes[i] & 0xff;
      hash *= FNV_PRIME;
    }
    return hash;
  }

  /** MurmurHash3's 64-bit finaliser: spreads every input bit over the whole word. */
  public static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
