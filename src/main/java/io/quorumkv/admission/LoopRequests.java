package io.quorumkv.admission;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client requests in flight on one event loop, up to a bound. Changed on that loop only; the
 * count is atomic so that metrics may read it from elsewhere.
 */
public final class LoopRequests {
  private final int max;
  private final AtomicInteger inFlight = new AtomicInteger();

  /** @param max the bound; 0 for none */
  LoopRequests(int max) {
    this.max = max;
  }

  /** Counts one more request, unless the bound is reached. */
  boolean tryStart() {
    if (max > 0 && inFlight.get() >= max) {
      return false;
    }
    inFlight.incrementAndGet();
    return true;
  }

  /** A request admitted by {@link Admission#admit} was answered, or its connection closed. */
  public void finish() {
    inFlight.decrementAndGet();
  }

  public int inFlight() {
    return inFlight.get();
  }
}
