package io.quorumkv.storage;

import io.quorumkv.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The times the purge gate compares: never backward, and an exchange never starts past a write in flight. */
class WriteClockTest {
  @Test
  void neverGoesBackWhenTheWallClockSteppedBack() {
    ManualClock wall = new ManualClock(10_000);
    WriteClock clock = new WriteClock(wall, 4);
    assertEquals(10_000, clock.now());
    wall.set(4_000);
    assertEquals(10_000, clock.now(), "a record stored now must not seem older than an exchange begun before");
    wall.set(12_000);
    assertEquals(12_000, clock.now());
  }

  @Test
  void anExchangeStartsNoLaterThanAWriteStillInFlight() {
    ManualClock wall = new ManualClock(10_000);
    WriteClock clock = new WriteClock(wall, 4);
    long storedAt = clock.beginWrite(new int[] {1, 3});
    wall.set(15_000);
    long start = clock.exchangeStart();
    assertTrue(start <= storedAt, "the write has not changed the trees yet: the exchange must not count it as seen ("
        + start + " > " + storedAt + ")");
    clock.endWrite(new int[] {1, 3});
    assertEquals(15_000, clock.exchangeStart());
  }
}
