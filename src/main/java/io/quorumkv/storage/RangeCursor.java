package io.quorumkv.storage;

import java.util.List;

/**
 * A position in a sorted scan of the store. Not thread-safe: one caller at a time, which the
 * storage executor guarantees by running each step as one task.
 */
public interface RangeCursor extends AutoCloseable {

  /** The next live records, at most {@code maxRecords} of them or about {@code maxBytes} of keys and values. */
  List<RangeEntry> next(int maxRecords, int maxBytes, long nowMillis);

  /** True once {@link #next} has returned the last record. */
  boolean exhausted();

  @Override
  void close();
}
