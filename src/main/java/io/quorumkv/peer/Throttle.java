package io.quorumkv.peer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.concurrent.TimeUnit;

/**
 * Paces repairs (and transfers) to at most so many records and bytes a second, by handing out start times
 * (a timer, never a sleep). Used from one context only.
 */
public final class Throttle {
  private final Vertx vertx;
  private final long recordsPerSecond;
  private final long bytesPerSecond;
  private long nextFreeNanos = System.nanoTime();

  public Throttle(Vertx vertx, long recordsPerSecond, long bytesPerSecond) {
    this.vertx = vertx;
    this.recordsPerSecond = recordsPerSecond;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Completes when {@code records} records of {@code bytes} bytes in all may go. */
  public Future<Void> acquire(long records, long bytes) {
    long now = System.nanoTime();
    long costNanos = Math.max(records * 1_000_000_000L / recordsPerSecond, bytes * 1_000_000_000L / bytesPerSecond);
    long start = Math.max(now, nextFreeNanos);
    nextFreeNanos = start + costNanos;
    long waitMs = TimeUnit.NANOSECONDS.toMillis(start - now);
    return waitMs <= 0 ? Future.succeededFuture() : vertx.timer(waitMs, TimeUnit.MILLISECONDS).mapEmpty();
  }
}
