package io.quorumkv.bench;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long this tool's own event loops were held up (busy, short of CPU, or paused by GC), the
 * way jHiccup measures it: each loop runs a tick every millisecond, and how late each tick runs
 * (past {@link #STALL_NANOS}) is time the loop could not have sent a request on schedule either. A loaded server cannot
 * cause that; a starved load generator does.
 */
final class LoopStallMeter {
  /** Rare enough that the ticks cost nothing measurable; stalls shorter than a tick are not seen. */
  private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** Timers overshoot by a millisecond or so, and CPU contention adds a few; a tick later than this was held up. */
  private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final List<Loop> loops = new ArrayList<>();
  private volatile boolean running;

  LoopStallMeter(Vertx vertx) {
    for (EventExecutor executor : ((VertxInternal) vertx).nettyEventLoopGroup()) {
      loops.add(new Loop(executor));
    }
  }

  void start() {
    running = true;
    loops.forEach(Loop::tick);
  }

  /** Stops the ticks; returns the busiest loop's held-up time as a share of {@code windowNanos}. */
  double stop(long windowNanos) {
    running = false;
    long worst = loops.stream().mapToLong(loop -> loop.stalledNanos.get()).max().orElse(0);
    return (double) worst / Math.max(1, windowNanos);
  }

  private final class Loop {
    private final EventExecutor executor;
    private final AtomicLong stalledNanos = new AtomicLong();

    Loop(EventExecutor executor) {
      this.executor = executor;
    }

    void tick() {
      long due = System.nanoTime() + TICK_NANOS;
      executor.schedule(() -> {
        long late = System.nanoTime() - due;
        if (late > STALL_NANOS) {
          stalledNanos.addAndGet(late);
        }
        if (running) {
          tick();
        }
      }, TICK_NANOS, TimeUnit.NANOSECONDS);
    }
  }
}
