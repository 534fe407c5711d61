package io.quorumkv.storage;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sizes of the large values this node last wrote or read, by key, so that a read of one can
 * take its bytes from the budget before the value is on the heap, and goes to a storage worker,
 * where the gets of one key in one group share one copy of it (read on the event loop, each get
 * would hold a copy of its own until its client has read it). Bounded: when full it starts again
 * empty. A key not known here is read first and budgeted once its size is known.
 */
public final class LargeValueSizes {
  /**
   * Values from this size on are large: remembered here, held against the client budget while they
   * are read or their replica writes outlast their answer, and left to the router by the entity fast
   * path; smaller ones cost the budget nothing worth counting.
   */
  public static final int LARGE_BYTES = 64 * 1024;
  static final int MAX_KEYS = 10_000;

  private final ConcurrentHashMap<ByteBuffer, Integer> sizes = new ConcurrentHashMap<>();

  /** The bytes of the key's value when last seen large, or 0. */
  public int sizeOf(byte[] key) {
    if (sizes.isEmpty()) {
      return 0;
    }
    Integer size = sizes.get(ByteBuffer.wrap(key));
    return size == null ? 0 : size;
  }

  /** Whether a value of this size is remembered here. */
  public static boolean isLarge(int valueBytes) {
    return valueBytes >= LARGE_BYTES;
  }

  /** Notes the size of the key's value as written or read (0 when absent). */
  public void observe(byte[] key, int valueBytes) {
    if (!isLarge(valueBytes)) {
      if (!sizes.isEmpty()) {
        sizes.remove(ByteBuffer.wrap(key));
      }
      return;
    }
    if (sizes.size() >= MAX_KEYS) {
      sizes.clear();
    }
    sizes.put(ByteBuffer.wrap(key.clone()), valueBytes);
  }
}
