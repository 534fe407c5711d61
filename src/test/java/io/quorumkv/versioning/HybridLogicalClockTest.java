package io.quorumkv.versioning;

import io.quorumkv.support.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HybridLogicalClockTest {

  @Test
  void manyVersionsInOneMillisecondStrictlyIncrease() {
    ManualClock wall = new ManualClock(1_700_000_000_000L);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
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
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
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
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
    clock.next();
    wall.advance(10);
    assertEquals(HybridLogicalClock.versionAt(5_010), clock.next());
  }

  @Test
  void neverGoesBackWhenTheWallClockSteppedBack() {
    ManualClock wall = new ManualClock(10_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
    long before = clock.next();
    wall.set(1_000);
    assertTrue(clock.next() > before);
  }

  @Test
  void startsAboveItsFloor() {
    ManualClock wall = new ManualClock(1_000);
    long floor = HybridLogicalClock.versionAt(9_000);
    assertTrue(new HybridLogicalClock(wall, floor).next() > floor);
  }

  @Test
  void observedVersionsMoveTheClockPastThem() {
    ManualClock wall = new ManualClock(1_000);
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
    long remote = HybridLogicalClock.versionAt(50_000) + 7;
    clock.observe(remote);
    assertTrue(clock.next() > remote);
    clock.observe(5);
    assertTrue(clock.next() > remote + 1, "observing an older version never moves the clock back");
  }

  @Test
  void concurrentCallersNeverGetTheSameVersion() throws InterruptedException {
    HybridLogicalClock clock = new HybridLogicalClock(new ManualClock(1_000), 0);
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
    HybridLogicalClock clock = new HybridLogicalClock(wall, 0);
    long bound = ClockLease.boundFor(clock);
    wall.advance(ClockLease.LEASE_MS - 1);
    for (int i = 0; i < 1_000; i++) {
      assertTrue(clock.next() < bound);
    }
  }
}
