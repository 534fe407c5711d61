package io.quorumkv.storage;

import io.quorumkv.versioning.ClockLease;

/** Small named values a node keeps about itself (the clock bound, the topology, transfer cursors), apart from records. Blocking. */
public interface MetaStore {

  /** The value stored under {@code name}, or {@code absent} if none. */
  long readLong(String name, long absent);

  void writeLong(String name, long value);

  /** The bytes stored under {@code name}, or null if none. */
  byte[] read(String name);

  void write(String name, byte[] value);

  /** The clock lease's bound, kept under its own name. */
  default ClockLease.BoundStore clockBound() {
    return new ClockLease.BoundStore() {
      @Override
      public long read() {
        return readLong("hlc.bound", 0);
      }

      @Override
      public void write(long bound) {
        writeLong("hlc.bound", bound);
      }
    };
  }
}
