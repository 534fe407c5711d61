package io.quorumkv.storage;

import io.quorumkv.placement.Hashes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A Bloom filter whose every key sets its six bits in one 64-byte block, a cache line, so adding a
 * key touches one line of memory rather than one per bit. At 9.6 bits a key it answers about 1.2%
 * false positives at the keys it is sized for (an unblocked filter of that size, 1.0%).
 * Thread-safe without locks: bits are only ever set, each by an atomic OR.
 */
final class BlockedBloomFilter {
  private static final int PROBES = 6;
  private static final int BLOCK_BYTES = 64;
  private static final int BLOCK_BITS = BLOCK_BYTES * Byte.SIZE;
  /** 256 MiB, about 220 million keys at 9.6 bits a key; past it the filter fills up instead. */
  private static final long MAX_BLOCKS = 1L << 22;
  /** Keeps the block a key falls in apart from placement's and anti-entropy's uses of its hash. */
  private static final long SALT = 0x9e3779b97f4a7c15L;
  private static final VarHandle WORDS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  /**
   * Aligned to 64 bytes, so each block is one cache line. A long[] would not do: its elements
   * start 16 bytes into it and a large array starts on a line, so every block would span two.
   */
  private final ByteBuffer words;
  private final long blocks;

  BlockedBloomFilter(long expectedKeys, double bitsPerKey) {
    long wanted = (long) Math.ceil(Math.max(1, expectedKeys) * bitsPerKey / BLOCK_BITS);
    blocks = Math.min(Math.max(1, wanted), MAX_BLOCKS);
    words = ByteBuffer.allocateDirect((int) blocks * BLOCK_BYTES + BLOCK_BYTES - 1).alignedSlice(BLOCK_BYTES);
  }

  /** Adds the key; true if that set a bit, i.e. the key was certainly not added before. */
  boolean put(byte[] key) {
    long hash = Hashes.mix(Hashes.fnv1a(key) ^ SALT);
    // The high 32 bits scaled to [0, blocks): a range reduction without a division.
    int blockAt = (int) (((hash >>> 32) * blocks) >>> 32) * BLOCK_BYTES;
    long probes = Hashes.mix(hash);
    boolean changed = false;
    // Nine bits a probe: the low six pick the bit (a long shift uses only those), the next three the word.
    for (int i = 0; i < PROBES; i++, probes >>>= 9) {
      int wordAt = blockAt + ((int) probes >>> 6 & 7) * Long.BYTES;
      long bit = 1L << probes;
      if (((long) WORDS.getOpaque(words, wordAt) & bit) == 0) {
        changed |= ((long) WORDS.getAndBitwiseOr(words, wordAt, bit) & bit) == 0;
      }
    }
    return changed;
  }
}
