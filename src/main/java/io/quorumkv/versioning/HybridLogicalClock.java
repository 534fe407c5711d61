package io.quorumkv.versioning;

import io.vertx.core.Future;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Issues record versions: a hybrid logical clock packed into one {@code long}, wall-clock
 * milliseconds in the high 48 bits and a counter in the low 16.
 *
 * <p>A version is {@code max(last + 1, now << 16)}: it follows the wall clock, never repeats
 * and never goes backwards, even when many writes share a millisecond (the counter runs on,
 * carrying into the millisecond part if it ever overflows) or when the wall clock steps back.
 * {@link #observe(long)} moves the clock past a version seen elsewhere, so a node never issues
 * a version lower than one it has stored; a version more than the maximum offset ahead of this
 * node's wall clock is refused instead, so a node whose clock runs away cannot drag the others
 * along. Versions stay within the persisted lease ({@link #leaseUpTo}): a crash can never make
 * the clock go back. Arithmetic saturates, it never wraps. Thread-safe and lock-free.
 */
public final class HybridLogicalClock {
  public static final int COUNTER_BITS = 16;
  private static final long MAX_MILLIS = Long.MAX_VALUE >>> COUNTER_BITS;

  private final InstantSource wallClock;
  private final long maxOffsetMs;
  private final AtomicLong last;
  private final LongAdder refusedAhead = new LongAdder();
  private volatile long leasedUpTo;
  private volatile Supplier<Future<?>> leaseRenewal = () -> Future.failedFuture("no lease renewal");

  /**
   * A clock with no lease to respect, for tools and tests.
   *
   * @param floor every version issued is greater than this one
   */
  public HybridLogicalClock(InstantSource wallClock, long floor, long maxOffsetMs) {
    this(wallClock, floor, maxOffsetMs, Long.MAX_VALUE);
  }

  private HybridLogicalClock(InstantSource wallClock, long floor, long maxOffsetMs, long leasedUpTo) {
    this.wallClock = wallClock;
    this.maxOffsetMs = maxOffsetMs;
    this.last = new AtomicLong(floor);
    this.leasedUpTo = leasedUpTo;
  }

  /**
   * A node's clock, starting above the persisted bound {@code floor}; it issues nothing until
   * {@link #leaseUpTo} says how far a persisted lease covers.
   */
  public static HybridLogicalClock leased(InstantSource wallClock, long floor, long maxOffsetMs) {
    return new HybridLogicalClock(wallClock, floor, maxOffsetMs, floor);
  }

  /** A new version, above every version issued or observed. */
  public long next() {
    long physical = versionAt(wallClock.millis());
    return last.updateAndGet(previous -> {
      if (previous == Long.MAX_VALUE) {
        throw new ClockException("the clock has no version left above " + previous, false);
      }
      long version = Math.max(previous + 1, physical);
      if (version > leasedUpTo) {
        throw new ClockException("the persisted clock lease ends at version " + leasedUpTo
            + "; versions above it wait for its renewal", true);
      }
      return version;
    });
  }

  /**
   * {@link #next()}, or, when the persisted lease does not cover the next version yet (the wall
   * clock jumped forward, or renewals stalled), the next version once a renewal has persisted.
   */
  public Future<Long> issue() {
    try {
      return Future.succeededFuture(next());
    } catch (ClockException e) {
      if (!e.waitsForLease()) {
        return Future.failedFuture(e);
      }
      return leaseRenewal.get().transform(renewed -> {
        try {
          return Future.succeededFuture(next());
        } catch (ClockException again) {
          return Future.failedFuture(again);
        }
      });
    }
  }

  /**
   * Moves the clock past a version seen elsewhere.
   *
   * @throws ClockException if the version is more than the maximum offset ahead of this node's wall clock
   */
  public void observe(long version) {
    requireWithinOffset(version);
    last.accumulateAndGet(version, Math::max);
  }

  /**
   * Refuses (and counts) a version that would move the clock more than the maximum offset ahead of
   * this node's wall clock. One the clock has already reached (after the wall clock stepped back)
   * needs no adopting and passes.
   */
  private void requireWithinOffset(long version) {
    long aheadMs = millisOf(version) - wallClock.millis();
    if (aheadMs > maxOffsetMs && version > last.get()) {
      refusedAhead.increment();
      throw new ClockException("version " + version + " is " + aheadMs + " ms ahead of this node's clock"
          + " (maxClockOffsetMs " + maxOffsetMs + ")", false, aheadMs);
    }
  }

  /** A lease covering versions up to {@code bound} is persisted: the clock may issue up to it. */
  public void leaseUpTo(long bound) {
    leasedUpTo = bound;
  }

  /** The highest version the persisted lease covers. */
  public long leasedUpTo() {
    return leasedUpTo;
  }

  /**
   * How {@link #issue()} gets a lease renewed when it needs one: persists a new lease (off the
   * event loop) and completes once {@link #leaseUpTo} took it.
   */
  public void renewLeaseWith(Supplier<Future<?>> renewal) {
    leaseRenewal = renewal;
  }

  /** The highest version issued or observed so far. */
  public long current() {
    return last.get();
  }

  public long wallMillis() {
    return wallClock.millis();
  }

  /** Versions refused for being too far ahead since the node started. */
  public long refusedAhead() {
    return refusedAhead.sum();
  }

  public static long millisOf(long version) {
    return version >>> COUNTER_BITS;
  }

  /** The first version of a millisecond; saturates at {@link Long#MAX_VALUE} for millis beyond the clock's range. */
  public static long versionAt(long millis) {
    if (millis >= MAX_MILLIS) {
      return Long.MAX_VALUE;
    }
    return millis <= 0 ? 0 : millis << COUNTER_BITS;
  }
}
