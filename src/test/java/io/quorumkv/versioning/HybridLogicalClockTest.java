package io.quorumkv.versioning;

import io.quorumkv.support.ManualClock;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HybridLogicalClockTest {
  private static final long UNBOUNDED_OFFSET = Long.MAX_VALUE;

  @Test
  void manyVersionsInOneMillisecondStrictlyIncrease() {
    ManualClock wall = new ManualClock(1_700_000_000_000L);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    long previous = clock.next();
    for (int i = 0; i < 200_000; i++) {
      long next = clock.next();
      assertTrue(next > previous, "version " + i + " went from " + previous + " to " + next);
      previous = next;
    }
  }

  @Test
  void counterOverflowCarriesIntoTheMillisecondsAndNeverWraps() {
    ManualClock wall = new ManualClock(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    long first = clock.next();
    long last = first;
    for (int i = 0; i < (1 << HybridLogicalClock.COUNTER_BITS) + 10; i++) {
      last = clock.next();
    }
    assertEquals(1_000, HybridLogicalClock.millisOf(first));
    assertEquals(1_001, HybridLogicalClock.millisOf(last));
    wall.set(1_001);
    assertTrue(clock.next() > last);
  }

  @Test
  void followsTheWallClockForward() {
    ManualClock wall = new ManualClock(5_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    clock.next();
    wall.advance(10);
    assertEquals(HybridLogicalClock.versionAt(5_010), clock.next());
  }

  @Test
  void neverGoesBackWhenTheWallClockSteppedBack() {
    ManualClock wall = new ManualClock(10_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    long before = clock.next();
    wall.set(1_000);
    assertTrue(clock.next() > before);
  }

  @Test
  void startsAboveItsFloor() {
    ManualClock wall = new ManualClock(1_000);
    long floor = HybridLogicalClock.versionAt(9_000);
    assertTrue(new HybridLogicalClock(wall, floor, UNBOUNDED_OFFSET).next() > floor);
  }

  @Test
  void observedVersionsMoveTheClockPastThem() {
    ManualClock wall = new ManualClock(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    long remote = HybridLogicalClock.versionAt(50_000) + 7;
    clock.observe(remote);
    assertTrue(clock.next() > remote);
    clock.observe(5);
    assertTrue(clock.next() > remote + 1, "observing an older version never moves the clock back");
  }

  @Test
  void concurrentCallersNeverGetTheSameVersion() throws InterruptedException {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualClock(1_000), 0, UNBOUNDED_OFFSET);
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    int threads = 4;
    int perThread = 50_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      pool.execute(() -> {
        for (int i = 0; i < perThread; i++) {
          seen.add(clock.next());
        }
      });
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    assertEquals(threads * perThread, seen.size());
  }

  @Test
  void leaseBoundIsAheadOfEveryVersionIssuedSoon() {
    ManualClock wall = new ManualClock(1_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, UNBOUNDED_OFFSET);
    long bound = ClockLease.boundFor(clock);
    wall.advance(ClockLease.LEASE_MS - 1);
    for (int i = 0; i < 1_000; i++) {
      assertTrue(clock.next() < bound);
    }
  }

  @Test
  void aVersionBeyondTheMaxOffsetIsRefusedCountedAndNotAdopted() {
    ManualClock wall = new ManualClock(1_000_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0, 5_000);
    clock.observe(HybridLogicalClock.versionAt(1_005_000));
    ClockException refused = assertThrows(ClockException.class,
        () -> clock.observe(HybridLogicalClock.versionAt(1_005_001)));
    assertTrue(refused.getMessage().contains("5001 ms ahead"), refused.getMessage());
    assertEquals(1, clock.refusedAhead());
    assertEquals(HybridLogicalClock.versionAt(1_005_000) + 1, clock.next(), "the refused version was not adopted");
  }

  @Test
  void theMaximalVersionIsRefusedInsteadOfWrappingTheClock() {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualClock(1_000), 0, 5_000);
    assertThrows(ClockException.class, () -> clock.observe(Long.MAX_VALUE));
    assertTrue(clock.next() > 0);
    HybridLogicalClock exhausted = new HybridLogicalClock(new ManualClock(1_000), Long.MAX_VALUE, UNBOUNDED_OFFSET);
    assertThrows(ClockException.class, exhausted::next, "no version above the maximum, and no wrap to negative");
    assertEquals(Long.MAX_VALUE, exhausted.current());
    assertEquals(Long.MAX_VALUE, HybridLogicalClock.versionAt(Long.MAX_VALUE - 5));
  }

  @Test
  void aLeasedClockIssuesNothingBeyondItsPersistedLeaseAndWaitsForARenewal() {
    ManualClock wall = new ManualClock(1_000_000);
    HybridLogicalClock clock = HybridLogicalClock.leased(wall, 0, 5_000);
    AtomicInteger renewals = new AtomicInteger();
    clock.renewLeaseWith(() -> {
      renewals.incrementAndGet();
      clock.leaseUpTo(ClockLease.boundFor(clock));
      return Future.succeededFuture();
    });
    ClockException refused = assertThrows(ClockException.class, clock::next, "no lease persisted yet");
    assertTrue(refused.waitsForLease());
    long first = clock.issue().result();
    assertEquals(1, renewals.get(), "issue() renewed the lease, then issued");
    assertTrue(first <= clock.leasedUpTo());
    wall.advance(ClockLease.LEASE_MS + 1);
    assertThrows(ClockException.class, clock::next, "the wall clock passed the lease");
    assertTrue(clock.issue().result() > first);
    assertEquals(2, renewals.get());
  }
}
