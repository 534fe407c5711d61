package io.quorumkv.storage;

/**
 * Whether small writes may be applied on the event loop that asked for them ({@link Store#tryApplyAll}),
 * and what those tries cost: each try's time goes to the observer, so that the time a write holds
 * an event loop is watched, not assumed.
 */
public final class LoopWrites {
  /** A group's keys and values at most: a write-ahead-log append of this size takes microseconds. */
  static final int MAX_GROUP_BYTES = 16 * 1024;
  /**
   * A group's writes at most; the rest of a busy turn's go to a worker. A write takes about 5 us
   * of CPU (its record and its index entry), so a try stays near 40 us on the CPU (measured: groups
   * of up to 32 took 100-350 us).
   */
  static final int MAX_GROUP_WRITES = 8;

  private final boolean enabled;
  private final StorageObserver observer;

  public LoopWrites(boolean enabled, StorageObserver observer) {
    this.enabled = enabled;
    this.observer = observer;
  }

  public static LoopWrites off() {
    return new LoopWrites(false, null);
  }

  boolean enabled() {
    return enabled;
  }

  void observe(int writes, long nanos, boolean applied) {
    observer.loopWrite(writes, nanos, applied);
  }
}
