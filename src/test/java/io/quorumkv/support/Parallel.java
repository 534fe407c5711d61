package io.quorumkv.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/** A test client's work spread over a few threads. */
public final class Parallel {
  private static final long EACH_TIMEOUT_S = 60;

  private Parallel() {
  }

  /** Runs {@code task} for 0 to count-1 on {@code threads} threads, failing with the first failure. */
  public static void forEachIndex(int count, int threads, IntConsumer task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int index = i;
        done.add(pool.submit(() -> task.accept(index)));
      }
      for (Future<?> each : done) {
        each.get(EACH_TIMEOUT_S, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
