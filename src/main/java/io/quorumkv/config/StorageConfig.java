package io.quorumkv.config;

/**
 * RocksDB and storage-worker settings.
 *
 * @param workers          storage worker verticles (each runs one RocksDB call at a time)
 * @param blockCacheBytes  shared LRU block cache for reads
 * @param rowCacheBytes    LRU cache of single records read by key (RocksDB's row cache); 0 for none
 * @param writeBufferBytes size of one memtable (RocksDB keeps at most two)
 * @param sweepIntervalMs  how often the purge sweep walks the store
 * @param purgeGraceMs     how long tombstones and expired records stay on disk before the sweep drops them
 * @param newKeyFilterKeys how many keys the filter of stored keys is sized for (about 1.2 bytes a key, off the heap),
 *                         which lets a write of a key never stored skip the read before it; 0 for none
 * @param writesOnLoop     whether a small write that needs no wait (no lock held, its key's record in
 *                         memory, no write stall) is applied on the event loop that asked for it
 */
public record StorageConfig(int workers, long blockCacheBytes, long rowCacheBytes, long writeBufferBytes,
                            long sweepIntervalMs, long purgeGraceMs, long newKeyFilterKeys, boolean writesOnLoop) {

  public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L << 20;
  public static final long DEFAULT_ROW_CACHE_BYTES = 64L << 20;
  public static final long DEFAULT_WRITE_BUFFER_BYTES = 16L << 20;
  public static final long DEFAULT_SWEEP_INTERVAL_MS = 10 * 60_000L;
  public static final long DEFAULT_PURGE_GRACE_MS = 24 * 3_600_000L;
  public static final long DEFAULT_NEW_KEY_FILTER_KEYS = 2_000_000L;

  /**
   * One storage worker per core, and at least two, so that one slow call (a write stall) does not
   * hold up every other (docs/performance.md has what 1, 2 and 4 workers measured on 2 cores).
   */
  public static int defaultWorkers() {
    return Math.max(2, Runtime.getRuntime().availableProcessors());
  }

  public static StorageConfig defaults() {
    return new StorageConfig(defaultWorkers(), DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_ROW_CACHE_BYTES,
        DEFAULT_WRITE_BUFFER_BYTES, DEFAULT_SWEEP_INTERVAL_MS, DEFAULT_PURGE_GRACE_MS, DEFAULT_NEW_KEY_FILTER_KEYS, false);
  }

  /** These settings with a row cache of {@code bytes} (0 for none). */
  public StorageConfig withRowCacheBytes(long bytes) {
    return new StorageConfig(workers, blockCacheBytes, bytes, writeBufferBytes, sweepIntervalMs, purgeGraceMs,
        newKeyFilterKeys, writesOnLoop);
  }
}
