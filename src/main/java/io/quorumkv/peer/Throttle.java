package io.quorumkv.peer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.concurrent.TimeUnit;

/**
 * Paces work to at most so many records and bytes a second by handing out start times: each
 * reservation starts when the one before it has used up its share of the second. The one pacing
 * rule of the node and its tools: repairs and transfers wait on a Vert.x timer ({@link #acquire},
 * never a sleep), and the restore tool's sending thread, which no event loop shares, waits in
 * {@link #await}. Used from one thread or context at a time.
 */
public final class Throttle {
  /** Null for a throttle that a tool's own thread waits on. */
  private final Vertx vertx;
  private final long recordsPerSecond;
  private final long bytesPerSecond;
  private long nextFreeNanos = System.nanoTime();

  /** Paces on timers of {@code vertx}. */
  public Throttle(Vertx vertx, long recordsPerSecond, long bytesPerSecond) {
    if (recordsPerSecond <= 0 || bytesPerSecond <= 0) {
      throw new IllegalArgumentException("a throttle's rates must be positive");
    }
    this.vertx = vertx;
    this.recordsPerSecond = recordsPerSecond;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Paces records alone, for a thread that may block ({@link #await}). */
  public static Throttle blocking(long recordsPerSecond) {
    return new Throttle(null, recordsPerSecond, Long.MAX_VALUE);
  }

  /** Completes when {@code records} records of {@code bytes} bytes in all may go. */
  public Future<Void> acquire(long records, long bytes) {
    if (vertx == null) {
      throw new IllegalStateException("a blocking throttle has no timers: call await");
    }
    long waitMs = TimeUnit.NANOSECONDS.toMillis(reserve(records, bytes));
    return waitMs <= 0 ? Future.succeededFuture() : vertx.timer(waitMs, TimeUnit.MILLISECONDS).mapEmpty();
  }

  /** Blocks the calling thread, never an event loop, until {@code records} records of {@code bytes} bytes may go. */
  public void await(long records, long bytes) throws InterruptedException {
    long waitNanos = reserve(records, bytes);
    if (waitNanos > 0) {
      TimeUnit.NANOSECONDS.sleep(waitNanos);
    }
  }

  /** Takes the next start time for this much work; how long from now until it. */
  private long reserve(long records, long bytes) {
    long now = System.nanoTime();
    long costNanos = Math.max(records * 1_000_000_000L / recordsPerSecond, bytes * 1_000_000_000L / bytesPerSecond);
    long start = Math.max(now, nextFreeNanos);
    nextFreeNanos = start + costNanos;
    return start - now;
  }
}
