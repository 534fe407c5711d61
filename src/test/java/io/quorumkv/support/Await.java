package io.quorumkv.support;

import io.vertx.core.Future;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Waiting in tests, always with a deadline. */
public final class Await {
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Await() {
  }

  /** The Future's result, waited for on the test thread (never an event loop). */
  public static <T> T result(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("future did not succeed: " + e, e);
    }
  }

  /** Polls until the condition holds; fails the test after the deadline. */
  public static void until(String what, Duration deadline, BooleanSupplier condition) {
    until(what, deadline, condition, () -> "");
  }

  /** {@link #until}, its failure saying what {@code state} describes at the deadline. */
  public static void until(String what, Duration deadline, BooleanSupplier condition, Supplier<String> state) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        String seen = state.get();
        fail("timed out after " + deadline + " waiting until " + what + (seen.isEmpty() ? "" : "; " + seen));
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
