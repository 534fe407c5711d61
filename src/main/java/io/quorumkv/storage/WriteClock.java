package io.quorumkv.storage;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The two times the purge gate compares: when a record was stored here, and when an anti-entropy
 * exchange began. It never goes backward within a process, so a wall clock stepped back cannot
 * make an exchange that began before a write seem to begin after it; and an exchange's start is
 * never later than a write still in flight, whose record the trees may not show yet (a write
 * takes its time before it changes the trees). Across a restart nothing needs comparing:
 * confirmations are not kept, and every record stored before a process started is in its trees.
 */
public final class WriteClock {
  private final InstantSource wallClock;
  private final AtomicLong last = new AtomicLong();
  /** Per lock stripe: the time at which the write holding it began, 0 when none does. */
  private final AtomicLongArray inFlight;

  public WriteClock(InstantSource wallClock, int stripes) {
    this.wallClock = wallClock;
    this.inFlight = new AtomicLongArray(stripes);
  }

  /** The wall clock's millis, or the latest value handed out if that is later. */
  public long now() {
    long wall = wallClock.millis();
    return last.accumulateAndGet(wall, Math::max);
  }

  /**
   * Marks a write in flight on {@code stripes} (which it holds) and returns its stored-at time.
   * The mark comes first: an exchange that does not see it began no later than this time.
   */
  long beginWrite(int[] stripes) {
    long mark = now();
    for (int stripe : stripes) {
      inFlight.set(stripe, mark);
    }
    return now();
  }

  /** The write on {@code stripes} changed the trees (or failed): it is no longer in flight. */
  void endWrite(int[] stripes) {
    for (int stripe : stripes) {
      inFlight.set(stripe, 0);
    }
  }

  /**
   * The start time of an exchange that reads the trees after this call: no later than any write
   * still in flight. A record stored at or after it may be missing from what the exchange saw.
   */
  public long exchangeStart() {
    long start = now();
    for (int stripe = 0; stripe < inFlight.length(); stripe++) {
      long mark = inFlight.get(stripe);
      if (mark != 0 && mark < start) {
        start = mark;
      }
    }
    return start;
  }
}
