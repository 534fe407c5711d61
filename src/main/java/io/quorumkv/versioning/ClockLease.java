package io.quorumkv.versioning;

/**
 * Keeps the clock from going back across a restart. A bound ahead of every version the
 * clock may issue soon is persisted; after a restart the clock starts above the persisted
 * bound, so even a wall clock that stepped back cannot repeat a version issued before.
 *
 * <p>The bound is {@link #LEASE_MS} ahead of the clock and is renewed every
 * {@link #RENEW_EVERY_MS}, so versions stay below the persisted bound unless renewals stall
 * for longer than the difference (the node logs a warning when a renewal fails).
 */
public final class ClockLease {
  public static final long LEASE_MS = 10_000;
  public static final long RENEW_EVERY_MS = 2_000;

  private ClockLease() {
  }

  /** The bound to persist now for this clock. */
  public static long boundFor(HybridLogicalClock clock) {
    long millis = Math.max(clock.wallMillis(), HybridLogicalClock.millisOf(clock.current()));
    return HybridLogicalClock.versionAt(millis + LEASE_MS);
  }
}
