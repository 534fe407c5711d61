package io.quorumkv.storage;

/**
 * A replica's local storage, blocking: only storage workers call it, never an event loop.
 * Keys are raw bytes ordered bytewise (so UTF-8 ids sort as their bytes).
 */
public interface Store extends AutoCloseable {

  /** The stored record for the key, tombstones and expired ones included; null if there is none. */
  Record get(byte[] key);

  /** Stores the record unless the one already stored supersedes it; true if it was stored. */
  boolean apply(byte[] key, Record record);

  /** {@link #get} of each key, in order; a store may read them in one call. */
  default java.util.List<Record> getAll(java.util.List<byte[]> keys) {
    return keys.stream().map(this::get).toList();
  }

  /**
   * {@link #apply} of each record to its key, in order, as if one after the other; a store may
   * write them as one atomic, write-ahead-logged batch.
   */
  default java.util.List<Boolean> applyAll(java.util.List<byte[]> keys, java.util.List<Record> records) {
    java.util.List<Boolean> stored = new java.util.ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      stored.add(apply(keys.get(i), records.get(i)));
    }
    return stored;
  }

  /** A cursor over {@code start <= key < end}; {@code end} null for no upper bound. */
  RangeCursor range(byte[] start, byte[] end);

  /** Drops, from {@code from} on, tombstones and expired records past the grace; see {@link PurgeSweep}. */
  PurgeSweep.Step purge(byte[] from, int maxKeys, long nowMillis, long graceMillis);

  /** Keeps a hint durably (write-ahead logged like records) in a family of its own. */
  void putHint(Hint hint);

  /** The target's oldest hints with a sequence above {@code afterSequence}, at most {@code limit}. */
  java.util.List<Hint> hints(String target, long afterSequence, int limit);

  /** Deletes the target's hints with a sequence below {@code sequence}; returns how many. */
  long dropHintsBefore(String target, long sequence);

  void deleteHint(String target, long sequence);

  /** How many hints are stored for each target. */
  java.util.Map<String, Long> countHints();

  /** Engine figures worth watching (memtable and block cache bytes, compaction backlog, cache hits...), by name. */
  java.util.Map<String, Long> engineStats();

  /** The clock bound persisted by {@link #writeClockBound}, 0 if none. */
  long readClockBound();

  void writeClockBound(long bound);

  @Override
  void close();
}
