package io.quorumkv.storage;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.ReadTier;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * The record engine: the {@link Store} on the records column family of a {@link RocksDatabase}.
 * Records live under their raw key, encoded by {@link RecordCodec}; each change also rewrites the
 * record's {@link RecordIndex} entry in the same write batch, and is then told to the
 * {@link RecordChangeListener}.
 *
 * <p>{@link #apply} is a read-compare-write; striped locks make it atomic per key against
 * other writers and the purge sweep. A key its {@link StoredKeyFilter} says was never stored is
 * written without the read. Lock order, everywhere: the database's lifecycle lock,
 * then key stripes in ascending order, or a cursor's monitor.
 */
public final class RocksStore implements Store {
  private static final int LOCK_STRIPES = 1024;

  private final RocksDatabase database;
  private final ColumnFamilyHandle records;
  private final ColumnFamilyHandle index;
  private final WriteClock writeClock;
  private final ReadOptions memoryOnly = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER);
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final Set<RocksRangeCursor> openCursors = ConcurrentHashMap.newKeySet();
  private final StoredKeyFilter storedKeys;
  private final LongAdder keysReadBeforeWriting = new LongAdder();
  private final LongAdder newKeysWritten = new LongAdder();
  private volatile RecordChangeListener listener = RecordChangeListener.NONE;
  private boolean closed;

  /** A store that reads before every write. */
  public RocksStore(RocksDatabase database) {
    this(database, InstantSource.system(), 0);
  }

  /**
   * @param wallClock        stamps each index entry with when its record was stored here (through a {@link WriteClock})
   * @param newKeyFilterKeys how many keys the filter of stored keys is sized for, 0 for none; it
   *                         starts to spare reads once {@link #scanIndex} has run
   */
  public RocksStore(RocksDatabase database, InstantSource wallClock, long newKeyFilterKeys) {
    this.database = database;
    this.writeClock = new WriteClock(wallClock, LOCK_STRIPES);
    this.storedKeys = StoredKeyFilter.sizedFor(newKeyFilterKeys);
    this.records = database.family(RocksDatabase.Family.RECORDS);
    this.index = database.family(RocksDatabase.Family.INDEX);
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** Set once, before any write: who keeps digests of the records (anti-entropy's trees). */
  public void onChange(RecordChangeListener listener) {
    this.listener = listener;
  }

  /**
   * Feeds every entry of {@code index} to {@code visitor}; the first scan also adds each key to the
   * filter of stored keys, after which writes of keys the filter never saw skip the read. One scan
   * at start thus serves both the filter and the anti-entropy trees. Blocking; call before anything
   * writes or while writes are paused. Returns the keys learned: none after the first scan, or when
   * the filter is off.
   */
  public long scanIndex(RecordIndex index, Consumer<IndexEntry> visitor) {
    if (storedKeys.isOff() || storedKeys.isLearned()) {
      index.forEach(visitor);
      return 0;
    }
    long[] learned = {0};
    index.forEach(entry -> {
      storedKeys.add(entry.key());
      learned[0]++;
      visitor.accept(entry);
    });
    storedKeys.learned();
    return learned[0];
  }

  /** How many keys were read before being written, and how many written without a read (new keys). */
  public Map<String, Long> writeStats() {
    return Map.of("keys-read-before-writing", keysReadBeforeWriting.sum(), "new-keys-written", newKeysWritten.sum(),
        "new-key-filter-learned", storedKeys.isLearned() ? 1L : 0L);
  }

  /**
   * Runs {@code task} while no write can change a record (every key stripe held): what it reads
   * of the store and what the listener is told afterwards then line up exactly. Blocking.
   */
  public void whileWritesPaused(Runnable task) {
    call("pause writes", db -> {
      for (ReentrantLock stripe : stripes) {
        stripe.lock();
      }
      try {
        task.run();
        return null;
      } finally {
        for (ReentrantLock stripe : stripes) {
          stripe.unlock();
        }
      }
    });
  }

  @Override
  public Record get(byte[] key) {
    return call("read", db -> {
      byte[] bytes = db.get(records, key);
      return bytes == null ? null : RecordCodec.decode(bytes);
    });
  }

  /**
   * A read that RocksDB answers from the memtables, the row cache and the block cache, or refuses with
   * {@code Incomplete} where it would have to read a file: it never blocks on the disk.
   */
  @Override
  public CachedRead getCached(byte[] key) {
    return database.tryCall(db -> {
      if (closed) {
        return CachedRead.UNKNOWN;
      }
      byte[] bytes = db.get(records, memoryOnly, key);
      return bytes == null ? CachedRead.ABSENT : CachedRead.of(RecordCodec.decode(bytes));
    }, CachedRead.UNKNOWN);
  }

  @Override
  public Record apply(byte[] key, Record record) {
    return applyAll(List.of(key), List.of(record)).get(0);
  }

  @Override
  public List<Record> getAll(List<byte[]> keys) {
    return call("read", db -> {
      List<byte[]> found = db.multiGetAsList(Collections.nCopies(keys.size(), records), keys);
      List<Record> decoded = new ArrayList<>(found.size());
      for (byte[] bytes : found) {
        decoded.add(bytes == null ? null : RecordCodec.decode(bytes));
      }
      return decoded;
    });
  }

  /**
   * Group commit: one multi-get for the stored versions and one write batch (one WAL write) for
   * what changes: each key keeps {@link Record#merge} of its stored and incoming records, so a
   * stored winner is rewritten only to take a larger replica count. The keys' stripes are locked
   * in ascending order, so two batches cannot deadlock.
   */
  @Override
  public List<Record> applyAll(List<byte[]> keys, List<Record> incoming) {
    int[] stripeIndexes = stripeIndexesOf(keys);
    return call("write", db -> {
      for (int index : stripeIndexes) {
        stripes[index].lock();
      }
      try {
        return write(db, keys, storedRecordsOf(db, keys), incoming, stripeIndexes, false);
      } finally {
        unlock(stripeIndexes, stripeIndexes.length);
      }
    });
  }

  /**
   * {@link #applyAll} where nothing has to wait: null, with nothing written, where it would wait
   * for a key's lock, the disk (a stored record only the files hold), another write in progress
   * (RocksDB would queue it behind that write's group) or a write stall (RocksDB's
   * {@code no_slowdown} answers {@code Incomplete} instead of stalling).
   */
  @Override
  public List<Record> tryApplyAll(List<byte[]> keys, List<Record> incoming) {
    int[] stripeIndexes = stripeIndexesOf(keys);
    return database.tryCall(db -> {
      if (closed || database.writing()) {
        return null;
      }
      int locked = 0;
      try {
        while (locked < stripeIndexes.length && stripes[stripeIndexes[locked]].tryLock()) {
          locked++;
        }
        return locked < stripeIndexes.length ? null
            : write(db, keys, storedInMemoryOf(db, keys), incoming, stripeIndexes, true);
      } finally {
        unlock(stripeIndexes, locked);
      }
    }, null);
  }

  private static int[] stripeIndexesOf(List<byte[]> keys) {
    int[] indexes = new int[keys.size()];
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = stripeIndexOf(keys.get(i));
    }
    return Arrays.stream(indexes).sorted().distinct().toArray();
  }

  private void unlock(int[] stripeIndexes, int locked) {
    for (int i = 0; i < locked; i++) {
      stripes[stripeIndexes[i]].unlock();
    }
  }

  /**
   * Merges and writes, called under the keys' stripes; {@code stored} holds each key's encoded
   * record or null. With {@code mustNotWait}, null where the write would wait (nothing written).
   */
  private List<Record> write(RocksDB db, List<byte[]> keys, List<byte[]> stored, List<Record> incoming,
                             int[] stripeIndexes, boolean mustNotWait) throws RocksDBException {
    try (WriteBatch batch = new WriteBatch()) {
      Map<ByteBuffer, Record> latest = new HashMap<>();
      List<Record> kept = new ArrayList<>(keys.size());
      List<Change> changes = new ArrayList<>();
      long now = writeClock.beginWrite(stripeIndexes);
      for (int i = 0; i < keys.size(); i++) {
        byte[] key = keys.get(i);
        ByteBuffer wrapped = ByteBuffer.wrap(key);
        Record in = incoming.get(i);
        Merge merge = latest.containsKey(wrapped) || stored.get(i) == null
            ? Merge.of(key, latest.get(wrapped), in)
            : Merge.of(key, EncodedRecord.of(stored.get(i)), in);
        if (merge.changed()) {
          latest.put(wrapped, merge.kept());
          RecordLeaf after = RecordLeaf.of(key, merge.kept());
          batch.put(records, key, merge.encoded() != null ? merge.encoded() : RecordCodec.encode(merge.kept()));
          batch.put(index, RecordIndex.keyOf(key), RecordIndex.valueOf(after, now));
          changes.add(new Change(key, merge.before(), after));
        }
        kept.add(merge.kept());
      }
      if (batch.count() > 0) {
        if (!mustNotWait) {
          database.write(db, batch);
        } else if (!database.tryWrite(db, batch)) {
          return null;
        }
        database.diskAlarm().clear();
        changes.forEach(change -> listener.changed(change.key(), change.before(), change.after()));
      }
      return kept;
    } finally {
      writeClock.endWrite(stripeIndexes);
    }
  }

  /** The clock of this store's stored-at times, which anti-entropy exchanges take their start from. */
  public WriteClock writeClock() {
    return writeClock;
  }

  /**
   * The stored record of each key, null where there is none; read only for the keys the filter
   * of stored keys may hold, after it learns them all. Called under the keys' stripes.
   */
  private List<byte[]> storedRecordsOf(RocksDB db, List<byte[]> keys) throws RocksDBException {
    List<byte[]> maybeStored = new ArrayList<>(keys.size());
    boolean[] read = new boolean[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      read[i] = !storedKeys.addIfNew(keys.get(i));
      if (read[i]) {
        maybeStored.add(keys.get(i));
      }
    }
    keysReadBeforeWriting.add(maybeStored.size());
    newKeysWritten.add(keys.size() - maybeStored.size());
    if (maybeStored.size() == keys.size()) {
      return db.multiGetAsList(Collections.nCopies(keys.size(), records), keys);
    }
    List<byte[]> found = maybeStored.isEmpty() ? List.of()
        : db.multiGetAsList(Collections.nCopies(maybeStored.size(), records), maybeStored);
    List<byte[]> stored = new ArrayList<>(keys.size());
    int next = 0;
    for (boolean wasRead : read) {
      stored.add(wasRead ? found.get(next++) : null);
    }
    return stored;
  }

  /**
   * {@link #storedRecordsOf} from memory alone: a read that would touch a file throws
   * ({@code Incomplete}). One get each, since a multi-get reports such a key as absent.
   */
  private List<byte[]> storedInMemoryOf(RocksDB db, List<byte[]> keys) throws RocksDBException {
    List<byte[]> stored = new ArrayList<>(keys.size());
    int read = 0;
    for (byte[] key : keys) {
      boolean maybeStored = !storedKeys.addIfNew(key);
      stored.add(maybeStored ? db.get(records, memoryOnly, key) : null);
      read += maybeStored ? 1 : 0;
    }
    keysReadBeforeWriting.add(read);
    newKeysWritten.add(keys.size() - read);
    return stored;
  }

  @Override
  public RangeCursor range(byte[] start, byte[] end) {
    return call("open a range", db -> {
      RocksRangeCursor cursor = new RocksRangeCursor(db, start, end);
      openCursors.add(cursor);
      return cursor;
    });
  }

  private record Change(byte[] key, RecordLeaf before, RecordLeaf after) {
  }

  @Override
  public PurgeSweep.Step purge(byte[] from, int maxKeys, long nowMillis, long graceMillis, PurgeGate gate) {
    return sweep("purge", from, maxKeys, (key, record) -> PurgeSweep.isPurgeable(record, nowMillis, graceMillis), gate);
  }

  @Override
  public PurgeSweep.Step drop(byte[] from, int maxKeys, BiPredicate<byte[], Record> unwanted) {
    return sweep("drop", from, maxKeys, unwanted, PurgeGate.GRACE_ONLY);
  }

  /**
   * Deletes, from {@code from} on, the records {@code doomed} names and the gate lets go. A batch
   * reads the index entries of its doomed records through one iterator: the index family's
   * memtable is a vector, which sorts a copy of itself for every read (see {@link RocksDatabase}).
   */
  private PurgeSweep.Step sweep(String what, byte[] from, int maxKeys, BiPredicate<byte[], Record> doomed,
                                PurgeGate gate) {
    return call(what, db -> {
      try (ReadOptions options = new ReadOptions().setFillCache(false);
           RocksIterator iterator = db.newIterator(records, options);
           IndexReader entries = new IndexReader(db, options)) {
        iterator.seek(from);
        int purged = 0;
        for (int seen = 0; seen < maxKeys && iterator.isValid(); seen++, iterator.next()) {
          byte[] encoded = iterator.value();
          Record record = RecordCodec.decode(encoded);
          byte[] key = iterator.key();
          if (doomed.test(key, record) && deleteIfUnchanged(db, key, encoded, record, gate, entries)) {
            purged++;
          }
        }
        boolean more = iterator.isValid();
        if (!more) {
          iterator.status();
        }
        return new PurgeSweep.Step(more ? iterator.key() : null, purged);
      }
    });
  }

  /** Point reads of the record index through one iterator, opened at the first read. */
  private final class IndexReader implements AutoCloseable {
    private final RocksDB db;
    private final ReadOptions options;
    private RocksIterator iterator;

    IndexReader(RocksDB db, ReadOptions options) {
      this.db = db;
      this.options = options;
    }

    /** The key's index entry as of the iterator's opening, null when it had none. */
    byte[] get(byte[] indexKey) throws RocksDBException {
      if (iterator == null) {
        iterator = db.newIterator(index, options);
      }
      iterator.seek(indexKey);
      if (iterator.isValid()) {
        return Arrays.equals(iterator.key(), indexKey) ? iterator.value() : null;
      }
      iterator.status();
      return null;
    }

    @Override
    public void close() {
      if (iterator != null) {
        iterator.close();
      }
    }
  }

  /**
   * Called from inside {@link #purge}, under the lifecycle lock. The index entry may be read from
   * before the key's lock is taken: it is used only when the record is unchanged since the
   * sweep's read, and then so is its entry, which is written in the same batch.
   */
  private boolean deleteIfUnchanged(RocksDB db, byte[] key, byte[] seen, Record record, PurgeGate gate,
                                    IndexReader entries) throws RocksDBException {
    ReentrantLock stripe = stripes[stripeIndexOf(key)];
    stripe.lock();
    try (WriteBatch batch = new WriteBatch()) {
      byte[] current = db.get(records, key);
      if (!Arrays.equals(current, seen)) {
        return false;
      }
      byte[] indexKey = RecordIndex.keyOf(key);
      byte[] entry = entries.get(indexKey);
      long storedAt = entry == null ? writeClock.now() : RecordIndex.decode(indexKey, entry).storedAt();
      if (!gate.allows(key, record, storedAt)) {
        return false;
      }
      batch.delete(records, key);
      batch.delete(index, indexKey);
      database.write(db, batch);
      listener.changed(key, RecordLeaf.of(key, record), null);
      return true;
    } finally {
      stripe.unlock();
    }
  }

  /** Releases the open range cursors; later calls fail. Close before the database. */
  @Override
  public void close() {
    database.exclusive(() -> {
      closed = true;
      openCursors.forEach(RocksRangeCursor::release);
      openCursors.clear();
      memoryOnly.close();
    });
  }

  private <T> T call(String what, RocksDatabase.Step<T> step) {
    return database.call(what, db -> {
      if (closed) {
        throw new StorageException("store is closed");
      }
      return step.run(db);
    });
  }

  private static int stripeIndexOf(byte[] key) {
    return Math.floorMod(Arrays.hashCode(key), LOCK_STRIPES);
  }

  private final class RocksRangeCursor implements RangeCursor {
    private final byte[] end;
    private final ReadOptions options;
    private final RocksIterator iterator;
    private boolean released;

    /** Called under the lifecycle lock. */
    RocksRangeCursor(RocksDB db, byte[] start, byte[] end) {
      this.end = end;
      this.options = new ReadOptions().setFillCache(false);
      this.iterator = db.newIterator(records, options);
      iterator.seek(start);
    }

    @Override
    public RangeBatch next(int maxRecords, int maxBytes) {
      return call("scan a range", db -> {
        synchronized (this) {
          if (released) {
            throw new StorageException("range cursor is closed");
          }
          List<RangeEntry> batch = new ArrayList<>();
          int bytes = 0;
          while (batch.size() < maxRecords && bytes < maxBytes && !exhausted()) {
            byte[] key = iterator.key();
            Record record = RecordCodec.decode(iterator.value());
            batch.add(new RangeEntry(key, record));
            bytes += key.length + record.value().length;
            iterator.next();
          }
          return new RangeBatch(batch, exhausted());
        }
      });
    }

    /** True past the last key; an iterator stopped by an error throws instead of looking finished. */
    private boolean exhausted() throws RocksDBException {
      if (!iterator.isValid()) {
        iterator.status();
        return true;
      }
      return end != null && Arrays.compareUnsigned(iterator.key(), end) >= 0;
    }

    @Override
    public void close() {
      database.shared(() -> {
        if (openCursors.remove(this)) {
          release();
        }
      });
    }

    private synchronized void release() {
      if (!released) {
        released = true;
        iterator.close();
        options.close();
      }
    }
  }
}
