package io.quorumkv.support;

import java.time.Instant;
import java.time.InstantSource;

/** The system clock moved by an offset the test can change while a node runs on it. */
public final class SkewedClock implements InstantSource {
  private volatile long offsetMillis;

  public void setOffset(long millis) {
    offsetMillis = millis;
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + offsetMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
