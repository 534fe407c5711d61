package io.quorumkv.antientropy;

import io.quorumkv.storage.RecordDigest;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The hash tree of what this node shares with one peer: each of the {@link RecordDigest#SEGMENTS}
 * segments is the XOR of its records' leaf digests, each of the {@link #BRANCHES} branches the
 * XOR of its segments, the root the XOR of the branches. XOR makes an update O(1) (a change
 * toggles the old leaf out and the new one in, in any order) and lets writers on several storage
 * workers update it without a lock.
 */
public final class HashTree {
  public static final int BRANCHES = 256;
  public static final int SEGMENTS_PER_BRANCH = RecordDigest.SEGMENTS / BRANCHES;

  private final AtomicLongArray segments = new AtomicLongArray(RecordDigest.SEGMENTS);
  private final AtomicLongArray branches = new AtomicLongArray(BRANCHES);

  /** Adds a leaf to its segment, or removes it if it is there. */
  void toggle(int segment, long leaf) {
    segments.accumulateAndGet(segment, leaf, (a, b) -> a ^ b);
    branches.accumulateAndGet(segment / SEGMENTS_PER_BRANCH, leaf, (a, b) -> a ^ b);
  }

  public long root() {
    long root = 0;
    for (int i = 0; i < BRANCHES; i++) {
      root ^= branches.get(i);
    }
    return root;
  }

  public long[] branches() {
    long[] copy = new long[BRANCHES];
    for (int i = 0; i < BRANCHES; i++) {
      copy[i] = branches.get(i);
    }
    return copy;
  }

  /** The segment digests of one branch, the branch's first segment first. */
  public long[] segmentsOf(int branch) {
    long[] copy = new long[SEGMENTS_PER_BRANCH];
    for (int i = 0; i < SEGMENTS_PER_BRANCH; i++) {
      copy[i] = segments.get(branch * SEGMENTS_PER_BRANCH + i);
    }
    return copy;
  }
}
