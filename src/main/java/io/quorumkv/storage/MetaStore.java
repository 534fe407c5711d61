package io.quorumkv.storage;

/** Small named values a node keeps about itself (the clock bound), apart from records. Blocking. */
public interface MetaStore {

  /** The value stored under {@code name}, or {@code absent} if none. */
  long readLong(String name, long absent);

  void writeLong(String name, long value);
}
