package io.quorumkv.versioning;

/**
 * Keeps the clock from going back across a restart. A bound ahead of every version the
 * clock may issue soon is persisted; after a restart the clock starts above the persisted
 * bound, so even a wall clock that stepped back cannot repeat a version issued before.
 *
 * <p>The bound is {@link #LEASE_MS} ahead of the clock and is renewed every
 * {@link #RENEW_EVERY_MS}, so versions stay below the persisted bound unless renewals stall
 * for longer than the difference (the node logs a warning when a renewal fails).
 * {@link #persistedBound} and {@link #persist} block: storage workers only.
 */
public final class ClockLease {
  public static final long LEASE_MS = 10_000;
  public static final long RENEW_EVERY_MS = 2_000;
  /** The largest maximum clock offset the lease covers. */
  public static final long MAX_CLOCK_OFFSET_MS = LEASE_MS - RENEW_EVERY_MS;

  /** Where the bound is kept across restarts (the node's meta data). Blocking. */
  public interface BoundStore {
    /** The bound last written, 0 if none. */
    long read();

    void write(long bound);
  }

  private final BoundStore store;

  public ClockLease(BoundStore store) {
    this.store = store;
  }

  /** The bound last persisted, 0 if none: the floor of the clock's next start. */
  public long persistedBound() {
    return store.read();
  }

  public void persist(long bound) {
    store.write(bound);
  }

  /** The bound to persist now for this clock. */
  public static long boundFor(HybridLogicalClock clock) {
    long millis = Math.max(clock.wallMillis(), HybridLogicalClock.millisOf(clock.current()));
    return HybridLogicalClock.versionAt(millis > Long.MAX_VALUE - LEASE_MS ? Long.MAX_VALUE : millis + LEASE_MS);
  }

  /**
   * How long a start must wait before its clock may issue versions, given the persisted bound:
   * after a crash the bound is up to {@link #LEASE_MS} ahead of the wall clock, plus the offset
   * by which a peer's versions may have pushed the clock ahead ({@code maxClockOffsetMs}), and a
   * clock started there would, for those seconds, issue versions ahead of every other node's,
   * which the others refuse and whose writes would beat later writes coordinated elsewhere. A
   * larger gap means the wall clock stepped back: waiting would not help, and the clock simply
   * starts above the bound.
   */
  public static long waitBeforeStartMs(long persistedBound, long wallMillis, long maxClockOffsetMs) {
    long aheadMs = HybridLogicalClock.millisOf(persistedBound) - wallMillis;
    return aheadMs <= 0 || aheadMs > LEASE_MS + maxClockOffsetMs ? 0 : aheadMs + 1;
  }
}
