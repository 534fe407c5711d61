package io.quorumkv.storage;

/**
 * A position in a sorted scan of the store. Not thread-safe: one caller at a time, which the
 * storage executor guarantees by running each step as one task.
 */
public interface RangeCursor extends AutoCloseable {

  /**
   * The next stored records, tombstones and expired ones included, at most {@code maxRecords} of
   * them or about {@code maxBytes} of keys and values, and whether they are the last.
   */
  RangeBatch next(int maxRecords, int maxBytes);

  @Override
  void close();
}
