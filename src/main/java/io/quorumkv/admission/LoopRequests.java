package io.quorumkv.admission;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client requests in flight on one event loop. Changed on that loop only; the count is atomic
 * so that the other loops' admission and metrics may read it.
 */
public final class LoopRequests {
  private final AtomicInteger inFlight = new AtomicInteger();

  void start() {
    inFlight.incrementAndGet();
  }

  /** A request admitted by {@link Admission#admit} was answered, or its connection closed. */
  public void finish() {
    inFlight.decrementAndGet();
  }

  public int inFlight() {
    return inFlight.get();
  }
}
