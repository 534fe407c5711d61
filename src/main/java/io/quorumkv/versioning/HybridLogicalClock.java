package io.quorumkv.versioning;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issues record versions: a hybrid logical clock packed into one {@code long}, wall-clock
 * milliseconds in the high 48 bits and a counter in the low 16.
 *
 * <p>A version is {@code max(last + 1, now << 16)}: it follows the wall clock, never repeats
 * and never goes backwards, even when many writes share a millisecond (the counter runs on,
 * carrying into the millisecond part if it ever overflows) or when the wall clock steps back.
 * {@link #observe(long)} moves the clock past a version seen elsewhere, so a node never issues
 * a version lower than one it has stored. Thread-safe and lock-free.
 */
public final class HybridLogicalClock {
  public static final int COUNTER_BITS = 16;

  private final InstantSource wallClock;
  private final AtomicLong last;

  /** @param floor every version issued is greater than this one (the persisted bound after a restart) */
  public HybridLogicalClock(InstantSource wallClock, long floor) {
    this.wallClock = wallClock;
    this.last = new AtomicLong(floor);
  }

  public long next() {
    long physical = wallClock.millis() << COUNTER_BITS;
    return last.updateAndGet(previous -> Math.max(previous + 1, physical));
  }

  public void observe(long version) {
    last.accumulateAndGet(version, Math::max);
  }

  /** The highest version issued or observed so far. */
  public long current() {
    return last.get();
  }

  public long wallMillis() {
    return wallClock.millis();
  }

  public static long millisOf(long version) {
    return version >>> COUNTER_BITS;
  }

  public static long versionAt(long millis) {
    return millis << COUNTER_BITS;
  }
}
