package io.quorumkv.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * A replica's local records, blocking: only storage workers call it, never an event loop
 * (except {@link #getCached} and {@link #tryApplyAll}).
 * Keys are raw bytes ordered bytewise (so UTF-8 ids sort as their bytes). Layers (test faults,
 * counters) wrap it; {@link RocksStore} is the engine.
 */
public interface Store extends AutoCloseable {

  /** The stored record for the key, tombstones and expired ones included; null if there is none. */
  Record get(byte[] key);

  /**
   * {@link #get}, answered only if the engine can do so from memory (memtables, row and block cache)
   * without touching the disk or waiting for a lock; {@link CachedRead#UNKNOWN} otherwise. The one
   * call an event loop may make. The default never knows, so a layer that holds or fails reads
   * sees every read in {@link #get}.
   */
  default CachedRead getCached(byte[] key) {
    return CachedRead.UNKNOWN;
  }

  /**
   * Stores the record unless the one already stored supersedes it; either way the key keeps the
   * larger replica count of the two ({@link Record#merge}). Returns the record the key holds
   * afterwards: {@code record} (or a copy with the stored, larger count) if it was stored, else the
   * stored one that won; so {@code kept.supersedes(record)} tells whether it was refused.
   */
  Record apply(byte[] key, Record record);

  /** {@link #get} of each key, in order; a store may read them in one call. */
  default List<Record> getAll(List<byte[]> keys) {
    return keys.stream().map(this::get).toList();
  }

  /**
   * {@link #apply} of each record to its key, in order, as if one after the other; a store may
   * write them as one atomic, write-ahead-logged batch.
   */
  default List<Record> applyAll(List<byte[]> keys, List<Record> records) {
    List<Record> kept = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      kept.add(apply(keys.get(i), records.get(i)));
    }
    return kept;
  }

  /**
   * {@link #applyAll} if it can be done without waiting for a lock, the disk or a write stall;
   * null, with nothing written, otherwise. The one write an event loop may make. The default never
   * can, so a layer that holds or fails writes sees every write in {@link #applyAll}.
   */
  default List<Record> tryApplyAll(List<byte[]> keys, List<Record> records) {
    return null;
  }

  /** A cursor over {@code start <= key < end}; {@code end} null for no upper bound. */
  RangeCursor range(byte[] start, byte[] end);

  /**
   * Drops, from {@code from} on, tombstones and expired records past the grace that the gate
   * allows to go; see {@link PurgeSweep}.
   */
  PurgeSweep.Step purge(byte[] from, int maxKeys, long nowMillis, long graceMillis, PurgeGate gate);

  /**
   * Drops, from {@code from} on, the records {@code unwanted} names (copies a topology change
   * moved to other nodes), each only if unchanged since it was read; at most {@code maxKeys} looked at.
   */
  PurgeSweep.Step drop(byte[] from, int maxKeys, BiPredicate<byte[], Record> unwanted);

  /** Releases what the store holds (open cursors); later calls fail. */
  @Override
  void close();
}
