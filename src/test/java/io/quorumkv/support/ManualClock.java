package io.quorumkv.support;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A wall clock that moves only when the test says so. */
public final class ManualClock implements InstantSource {
  private final AtomicLong millis;

  public ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  public static ManualClock startingNow() {
    return new ManualClock(System.currentTimeMillis());
  }

  public void advance(long deltaMillis) {
    millis.addAndGet(deltaMillis);
  }

  public void set(long newMillis) {
    millis.set(newMillis);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
