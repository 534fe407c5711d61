package io.quorumkv.versioning;

import io.quorumkv.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How long a restart waits for the wall clock to pass the lease a crash left behind. */
class ClockLeaseTest {
  private static final long MAX_OFFSET_MS = 1_000;

  @Test
  void aRestartAfterACrashWaitsOutTheLease() {
    ManualClock wall = new ManualClock(1_700_000_000_000L);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, MAX_OFFSET_MS);
    clock.next();
    long bound = ClockLease.boundFor(clock);
    assertEquals(ClockLease.LEASE_MS + 1, ClockLease.waitBeforeStartMs(bound, wall.millis(), MAX_OFFSET_MS));
  }

  /**
   * A peer's versions may push the clock up to the maximum offset ahead of the wall clock, and the
   * lease is taken from the clock: a crash then leaves a lease more than LEASE_MS ahead, which is
   * still no sign of a wall clock stepped back. Starting above it would issue versions the peers
   * refuse (more than the offset ahead of them) until their clocks catch up.
   */
  @Test
  void aLeasePushedAheadByAPeersVersionsIsWaitedOutToo() {
    ManualClock wall = new ManualClock(1_700_000_000_000L);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, MAX_OFFSET_MS);
    clock.observe(HybridLogicalClock.versionAt(wall.millis() + MAX_OFFSET_MS));
    long bound = ClockLease.boundFor(clock);
    long waitMs = ClockLease.waitBeforeStartMs(bound, wall.millis(), MAX_OFFSET_MS);
    assertEquals(ClockLease.LEASE_MS + MAX_OFFSET_MS + 1, waitMs);
    HybridLogicalClock restarted = HybridLogicalClock.leased(new ManualClock(wall.millis() + waitMs), bound,
        MAX_OFFSET_MS);
    long firstMillis = HybridLogicalClock.millisOf(restarted.current());
    assertTrue(firstMillis - (wall.millis() + waitMs) <= 0, "after the wait the clock starts level with the wall clock");
  }

  @Test
  void aWallClockSteppedBackFurtherStartsAtOnceAboveTheBound() {
    long wall = 1_700_000_000_000L;
    long bound = HybridLogicalClock.versionAt(wall + ClockLease.LEASE_MS + MAX_OFFSET_MS + 60_000);
    assertEquals(0, ClockLease.waitBeforeStartMs(bound, wall, MAX_OFFSET_MS));
  }
}
