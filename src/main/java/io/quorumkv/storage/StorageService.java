package io.quorumkv.storage;

import io.vertx.core.Future;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * The node's storage as seen from event loops: every call runs on a storage worker through
 * the {@link StorageExecutor} and answers with a Future on the caller's context, except the first
 * get of an event-loop turn that the engine can answer from memory, which is answered on the
 * caller's thread, and, with {@link LoopWrites} on, the small writes of a turn that need no wait.
 */
public final class StorageService {
  private static final int COUNT_STEP_RECORDS = 4096;
  private static final int COUNT_STEP_BYTES = 4 << 20;
  private final Store store;
  private final StorageExecutor executor;
  private final GroupedStorage grouped;
  private final InstantSource wallClock;
  private final StorageObserver observer;
  private final LongAdder rangeRecordsScanned = new LongAdder();
  private final LongAdder readsFromMemory = new LongAdder();
  private final LongAdder missesInMemory = new LongAdder();
  private final LargeValueSizes largeValues = new LargeValueSizes();
  private final LoopTurns loopTurns = new LoopTurns();

  /** @param grouped the single-key gets and applies, grouped per worker (group commit) */
  public StorageService(Store store, StorageExecutor executor, GroupedStorage grouped, InstantSource wallClock,
                        StorageObserver observer) {
    this.store = store;
    this.executor = executor;
    this.grouped = grouped;
    this.wallClock = wallClock;
    this.observer = observer;
  }

  /**
   * The stored record, read on the caller's thread when the memtables and the caches hold it (no
   * worker hand-off); records only the files hold are read by a storage worker, grouped into one
   * {@code MultiGet}. {@link LoopTurns} decides which gets try memory first; a key known to hold a
   * large value never does ({@link LargeValueSizes}).
   */
  public Future<Record> get(byte[] key) {
    if (largeValues.sizeOf(key) == 0 && loopTurns.tryMemory()) {
      CachedRead cached = store.getCached(key);
      loopTurns.memoryRead(cached.known());
      if (cached.known()) {
        readsFromMemory.increment();
        // Not known large a moment ago: only a large value has anything to tell.
        int valueBytes = valueBytes(cached.record());
        if (LargeValueSizes.isLarge(valueBytes)) {
          largeValues.observe(key, valueBytes);
        }
        return Future.succeededFuture(cached.record());
      }
      missesInMemory.increment();
    }
    return observer.timeStorage("get", grouped.get(key));
  }

  /** Completes with the record the key holds afterwards: {@code record} if it was stored, else the one that won. */
  public Future<Record> apply(byte[] key, Record record) {
    observeSize(key, record);
    return observer.timeStorage("apply", grouped.apply(key, record));
  }

  /** Tells {@link #largeValues} of the record's value, whatever path brought it: a client, a peer, a repair. */
  private void observeSize(byte[] key, Record record) {
    largeValues.observe(key, valueBytes(record));
  }

  private static int valueBytes(Record record) {
    return record == null || record.value() == null ? 0 : record.value().length;
  }

  public Future<RangeCursor> openRange(byte[] start, byte[] end) {
    return executor.submit(() -> store.range(start, end));
  }

  /** The next live records of the scan (tombstones and expired records left out); see {@link RangeCursor#next}. */
  public Future<RangeBatch> nextBatch(RangeCursor cursor, int maxRecords, int maxBytes) {
    return observer.timeStorage("range-batch", executor.submit(() -> {
      RangeBatch batch = scan(cursor, maxRecords, maxBytes);
      long now = wallClock.millis();
      List<RangeEntry> live = new ArrayList<>(batch.entries().size());
      for (RangeEntry entry : batch.entries()) {
        if (entry.record().isLive(now)) {
          live.add(entry);
        }
      }
      return new RangeBatch(live, batch.last());
    }));
  }

  /**
   * The next records of the scan as stored, tombstones and expired records included: what another
   * node needs to pick each key's freshest version (the cluster-wide range).
   */
  public Future<RangeBatch> nextRecords(RangeCursor cursor, int maxRecords, int maxBytes) {
    return observer.timeStorage("range-batch", executor.submit(() -> scan(cursor, maxRecords, maxBytes)));
  }

  private RangeBatch scan(RangeCursor cursor, int maxRecords, int maxBytes) {
    RangeBatch batch = cursor.next(maxRecords, maxBytes);
    rangeRecordsScanned.add(batch.entries().size());
    return batch;
  }

  /**
   * How many records from {@code start} on the filter takes, and their key and value bytes: a scan
   * in steps of a few thousand records, so other work on the storage workers goes on between them.
   */
  public Future<long[]> count(byte[] start, Predicate<RangeEntry> filter) {
    return openRange(start, null).compose(cursor -> countFrom(cursor, filter, new long[2])
        .eventually(() -> closeRange(cursor)));
  }

  private Future<long[]> countFrom(RangeCursor cursor, Predicate<RangeEntry> filter, long[] totals) {
    return executor.submit(() -> {
      RangeBatch batch = cursor.next(COUNT_STEP_RECORDS, COUNT_STEP_BYTES);
      for (RangeEntry entry : batch.entries()) {
        if (filter.test(entry)) {
          totals[0]++;
          totals[1] += entry.key().length + entry.value().length;
        }
      }
      return batch.last();
    }).compose(last -> last ? Future.succeededFuture(totals) : countFrom(cursor, filter, totals));
  }

  /** Drops, from {@code from} on, the records {@code unwanted} names; see {@link Store#drop}. */
  public Future<PurgeSweep.Step> drop(byte[] from, int maxKeys, BiPredicate<byte[], Record> unwanted) {
    return executor.submit(() -> store.drop(from, maxKeys, unwanted));
  }

  public Future<Void> closeRange(RangeCursor cursor) {
    return executor.submit(() -> {
      cursor.close();
      return null;
    });
  }

  public Future<PurgeSweep.Step> purge(byte[] from, int maxKeys, long graceMillis, PurgeGate gate) {
    return executor.submit(() -> store.purge(from, maxKeys, wallClock.millis(), graceMillis, gate));
  }

  /** Runs a blocking storage task (such as an index read) on a storage worker. */
  public <T> Future<T> submit(Callable<T> task) {
    return executor.submit(task);
  }

  /** Single-key gets and applies waiting for a storage worker to take their group. */
  public int queuedRequests() {
    return grouped.queued();
  }

  /** Single-key gets answered from memory on the caller's thread since the node started. */
  public long readsFromMemory() {
    return readsFromMemory.sum();
  }

  /** The sizes of large values: learnt from every apply and read from memory here, and from the HTTP layer's reads. */
  public LargeValueSizes largeValues() {
    return largeValues;
  }

  /** Gets that tried memory and found it could not tell, so went to a worker. */
  public long missesInMemory() {
    return missesInMemory.sum();
  }

  /** Records read by range scans since the node started, tombstones and expired ones included. */
  public long rangeRecordsScanned() {
    return rangeRecordsScanned.sum();
  }
}
