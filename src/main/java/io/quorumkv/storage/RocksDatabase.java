package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileManager;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.Status;
import org.rocksdb.TickerType;
import org.rocksdb.VectorMemTableConfig;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The node's one RocksDB instance, shared by the stores built on it: its column families
 * ({@link Family}), options, statistics and lifecycle. The write-ahead log is on, so whatever a
 * store writes survives {@code kill -9}.
 *
 * <p>Every RocksDB call runs through {@link #call}, under a lifecycle lock that keeps
 * {@link #close()} from freeing RocksDB while a call still uses it. Blocking: storage workers only,
 * but for {@link #tryCall}.
 */
public final class RocksDatabase implements AutoCloseable {
  /** The column families, each owned by one store. */
  public enum Family {
    /** Records under their raw key: {@link RocksStore}. */
    RECORDS(RocksDB.DEFAULT_COLUMN_FAMILY),
    /** Node bookkeeping such as the clock bound: {@link RocksMetaStore}. */
    META("meta".getBytes(StandardCharsets.UTF_8)),
    /** Hints for other replicas: {@code io.quorumkv.hints.RocksHintStore}. */
    HINTS("hints".getBytes(StandardCharsets.UTF_8)),
    /** Every record's anti-entropy digest by (segment, key): {@link RecordIndex}. */
    INDEX("index".getBytes(StandardCharsets.UTF_8));

    private final byte[] name;

    Family(byte[] name) {
      this.name = name;
    }
  }

  private static final int BLOOM_BITS_PER_KEY = 10;
  private static final int MAX_WAL_WRITE_BUFFERS = 4;
  private static final List<String> ENGINE_PROPERTIES = List.of(
      "rocksdb.cur-size-all-mem-tables", "rocksdb.estimate-num-keys", "rocksdb.estimate-pending-compaction-bytes",
      "rocksdb.num-running-compactions", "rocksdb.num-running-flushes", "rocksdb.total-sst-files-size",
      "rocksdb.estimate-table-readers-mem");

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final RocksDB db;
  private final List<ColumnFamilyHandle> families;
  private final WriteOptions writeOptions;
  private final WriteOptions noSlowdownWriteOptions;
  /** Writes in progress, {@link #tryWrite}'s and checkpoints' included. */
  private final AtomicInteger writesInProgress = new AtomicInteger();
  private final Statistics statistics;
  private final LRUCache blockCache;
  private final long blockCacheCapacity;
  private final LRUCache rowCache;
  private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private final DiskAlarm diskAlarm = new DiskAlarm(java.time.InstantSource.system());
  private boolean closed;

  private RocksDatabase(Path dir, StorageConfig config) throws RocksDBException {
    this.blockCache = track(new LRUCache(config.blockCacheBytes()));
    this.blockCacheCapacity = config.blockCacheBytes();
    this.statistics = track(new Statistics());
    statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
    // Index and filter blocks live in the block cache, so memory stays within its bound. They
    // are partitioned: a monolithic filter of a large file outgrows a cache shard, is dropped
    // at once and read back from the file on every get (measured: GET fell to 0.17 of the
    // HTTP ceiling at 1M keys).
    BlockBasedTableConfig table = new BlockBasedTableConfig()
        .setBlockCache(blockCache)
        .setFilterPolicy(track(new BloomFilter(BLOOM_BITS_PER_KEY)))
        .setIndexType(IndexType.kTwoLevelIndexSearch)
        .setPartitionFilters(true)
        .setCacheIndexAndFilterBlocks(true)
        .setCacheIndexAndFilterBlocksWithHighPriority(true)
        .setPinTopLevelIndexAndFilter(true)
        .setPinL0FilterAndIndexBlocksInCache(true);
    ColumnFamilyOptions familyOptions = track(new ColumnFamilyOptions()
        .setTableFormatConfig(table)
        .setWriteBufferSize(config.writeBufferBytes())
        .setMaxWriteBufferNumber(2));
    // The meta family sees a few bytes every couple of seconds and would never flush on its
    // own, pinning every WAL file; past this size RocksDB flushes it so old WAL files go.
    DBOptions dbOptions = track(new DBOptions()
        .setCreateIfMissing(true)
        .setCreateMissingColumnFamilies(true)
        .setStatistics(statistics)
        // With it, RocksDB recovers by itself from a full disk once space is freed.
        .setSstFileManager(track(new SstFileManager(Env.getDefault())))
        .setMaxTotalWalSize(MAX_WAL_WRITE_BUFFERS * config.writeBufferBytes()));
    // A point read found in the row cache skips the filter, index and data block lookups of each
    // file it would search (measured: a third less CPU per GET of a cached key).
    this.rowCache = config.rowCacheBytes() > 0 ? track(new LRUCache(config.rowCacheBytes())) : null;
    if (rowCache != null) {
      dbOptions.setRowCache(rowCache);
    }
    // Index entries are keyed by (segment, key), a hash, so each lands at a random place of a
    // skip list: inserting them cost a PUT as much as the rest of RocksDB's write. A vector
    // memtable appends and sorts once at flush (measured: 2.4 us less CPU a PUT), but sorts a
    // copy of itself for every read: read the index through iterators, never point gets in a loop.
    // Its values are hashes and times, which do not compress.
    // It is only ever iterated, so its files need no Bloom filter, which every flush and
    // compaction would otherwise hash each entry into.
    ColumnFamilyOptions indexOptions = track(new ColumnFamilyOptions(familyOptions)
        .setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockCache(blockCache)
            .setIndexType(IndexType.kTwoLevelIndexSearch)
            .setCacheIndexAndFilterBlocks(true)
            .setPinTopLevelIndexAndFilter(true))
        .setMemTableConfig(new VectorMemTableConfig())
        .setCompactionStyle(CompactionStyle.UNIVERSAL)
        .setCompressionType(CompressionType.NO_COMPRESSION));
    // A vector memtable takes no concurrent inserts; group commit leaves one writer at a time anyway.
    dbOptions.setAllowConcurrentMemtableWrite(false);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (Family family : Family.values()) {
      descriptors.add(new ColumnFamilyDescriptor(family.name, family == Family.INDEX ? indexOptions : familyOptions));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      this.db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      closeResources();
      throw e;
    }
    this.families = List.copyOf(handles);
    this.writeOptions = track(new WriteOptions());
    this.noSlowdownWriteOptions = track(new WriteOptions().setNoSlowdown(true));
  }

  /** Opens (creating if needed) the database in {@code dir}. Blocking. */
  public static RocksDatabase open(Path dir, StorageConfig config) {
    RocksDB.loadLibrary();
    NativeLibraryCopies.deleteLoaded();
    try {
      return new RocksDatabase(dir, config);
    } catch (RocksDBException e) {
      throw new StorageException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** One RocksDB step, given the handle; may throw RocksDB's checked exception. */
  public interface Step<T> {
    T run(RocksDB db) throws RocksDBException;
  }

  /** Runs one step while the database is open, as a {@link StorageException} if it fails. */
  public <T> T call(String what, Step<T> step) {
    lifecycle.readLock().lock();
    try {
      ensureOpen();
      return step.run(db);
    } catch (RocksDBException e) {
      throw failure(what, e);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * What a failed step tells its caller: a full disk raises the alarm; the message names the kind
   * of failure, never a file path (it may reach clients); RocksDB's own message stays in the cause.
   */
  private StorageException failure(String what, RocksDBException e) {
    Status status = e.getStatus();
    boolean noSpace = status != null && status.getSubCode() == Status.SubCode.NoSpace
        || String.valueOf(e.getMessage()).contains("No space left on device");
    if (noSpace) {
      diskAlarm.raise();
      return new DiskFullException(e);
    }
    String kind = status == null ? "failed" : status.getCode() == Status.Code.IOError ? "I/O error"
        : status.getCode().name();
    return new StorageException("cannot " + what + ": " + kind, e);
  }

  /** Raised while the disk is full. */
  public DiskAlarm diskAlarm() {
    return diskAlarm;
  }

  /**
   * {@link #call} for a step that never waits (a read from memory): answers {@code busy} at once
   * instead of waiting while {@link #close()} or {@link #exclusive} holds the lifecycle lock, and
   * when the database is closed or the step fails.
   */
  public <T> T tryCall(Step<T> step, T busy) {
    if (!lifecycle.readLock().tryLock()) {
      return busy;
    }
    try {
      return closed ? busy : step.run(db);
    } catch (RocksDBException e) {
      return busy;
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /** Runs {@code action} while no call is in progress and none can start, open or closed (to release iterators). */
  public void exclusive(Runnable action) {
    lifecycle.writeLock().lock();
    try {
      action.run();
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  /**
   * Runs {@code action} beside other calls, whether the database is open or closed: for releasing
   * what a store holds, which must take the lifecycle lock before the store's own locks.
   */
  public void shared(Runnable action) {
    lifecycle.readLock().lock();
    try {
      action.run();
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * A consistent copy of every family as of now, in {@code target} (which must not exist yet): the
   * memtables are flushed, then the table files are hard-linked where the file system allows (copied
   * where it does not). Writes go on meanwhile. Blocking, for as long as the flush takes.
   */
  public void checkpoint(Path target) {
    // Its flush switches the memtables inside RocksDB's write queue: a write from an event loop
    // meanwhile goes to a worker (tryWrite) instead of waiting behind it.
    try (WriteInProgress ignored = writeInProgress()) {
      call("take a checkpoint", rocks -> {
        try (Checkpoint checkpoint = Checkpoint.create(rocks)) {
          checkpoint.createCheckpoint(target.toString());
        }
        return null;
      });
    }
  }

  public ColumnFamilyHandle family(Family family) {
    return families.get(family.ordinal());
  }

  /**
   * Writes {@code batch} (write-ahead log on, no fsync per write). It may wait: for a stall, and
   * for the write group ahead of it, which {@link #tryWrite} never joins.
   */
  public void write(RocksDB db, WriteBatch batch) throws RocksDBException {
    try (WriteInProgress ignored = writeInProgress()) {
      db.write(writeOptions, batch);
    }
  }

  /** A write from its start to its end, which a {@link #tryWrite} meanwhile does not join. */
  interface WriteInProgress extends AutoCloseable {
    @Override
    void close();
  }

  WriteInProgress writeInProgress() {
    writesInProgress.incrementAndGet();
    return writesInProgress::decrementAndGet;
  }

  /** {@link #write} of one value. */
  public void put(RocksDB db, ColumnFamilyHandle family, byte[] key, byte[] value) throws RocksDBException {
    try (WriteInProgress ignored = writeInProgress()) {
      db.put(family, writeOptions, key, value);
    }
  }

  /** {@link #write} of one delete. */
  public void delete(RocksDB db, ColumnFamilyHandle family, byte[] key) throws RocksDBException {
    try (WriteInProgress ignored = writeInProgress()) {
      db.delete(family, writeOptions, key);
    }
  }

  /**
   * Writes {@code batch} only where it waits for nothing: false, with nothing written, while
   * another write is in progress (RocksDB would queue this one behind that write's group, however
   * long it takes); {@code Incomplete} from RocksDB ({@code no_slowdown}) instead of a stall.
   */
  boolean tryWrite(RocksDB db, WriteBatch batch) throws RocksDBException {
    if (!writesInProgress.compareAndSet(0, 1)) {
      return false;
    }
    try {
      db.write(noSlowdownWriteOptions, batch);
      return true;
    } finally {
      writesInProgress.decrementAndGet();
    }
  }

  /** Whether a write is in progress, which a {@link #tryWrite} now would not join. */
  boolean writing() {
    return writesInProgress.get() > 0;
  }

  /** Engine figures worth watching (memtable and block cache bytes, compaction backlog, cache hits...), by name. */
  public Map<String, Long> engineStats() {
    return call("read engine statistics", rocks -> {
      Map<String, Long> stats = new LinkedHashMap<>();
      for (String property : ENGINE_PROPERTIES) {
        stats.put(property, rocks.getLongProperty(family(Family.RECORDS), property));
      }
      stats.put("block-cache-usage-bytes", blockCache.getUsage());
      stats.put("block-cache-capacity-bytes", blockCacheCapacity);
      stats.put("block-cache-hits", statistics.getTickerCount(TickerType.BLOCK_CACHE_HIT));
      stats.put("block-cache-misses", statistics.getTickerCount(TickerType.BLOCK_CACHE_MISS));
      stats.put("row-cache-usage-bytes", rowCache == null ? 0L : rowCache.getUsage());
      stats.put("row-cache-hits", statistics.getTickerCount(TickerType.ROW_CACHE_HIT));
      stats.put("row-cache-misses", statistics.getTickerCount(TickerType.ROW_CACHE_MISS));
      stats.put("bytes-written", statistics.getTickerCount(TickerType.BYTES_WRITTEN));
      stats.put("compaction-bytes-read", statistics.getTickerCount(TickerType.COMPACT_READ_BYTES));
      stats.put("compaction-bytes-written", statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES));
      stats.put("stall-micros", statistics.getTickerCount(TickerType.STALL_MICROS));
      return stats;
    });
  }

  /**
   * Flushes the memtables and closes RocksDB, once every call in progress has returned. Close the
   * stores first (they release their iterators). Later calls fail with {@link StorageException}.
   */
  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
        db.flush(flush, families);
      } catch (RocksDBException e) {
        // The WAL still holds everything; the next open replays it.
      }
      families.forEach(ColumnFamilyHandle::close);
      db.close();
      closeResources();
    } catch (RuntimeException e) {
      throw new StorageException("close failed: " + e.getMessage(), e);
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new StorageException("store is closed");
    }
  }

  private void closeResources() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        // native handles close without checked failures; nothing more to do
      }
    }
  }

  private <T extends AutoCloseable> T track(T resource) {
    resources.add(resource);
    return resource;
  }
}
