package io.quorumkv.peer;

import io.quorumkv.support.Await;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one pacing rule, both ways of waiting on it: work past the first reservation starts no
 * sooner than its share of the second allows. Only lower bounds are checked: a loaded machine may
 * make the waits longer, never shorter.
 */
class ThrottleTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    Await.result(vertx.close());
  }

  @Test
  void aToolThreadWaitsForTheRecordsShareOfEachSecond() throws InterruptedException {
    long start = System.nanoTime();
    Throttle throttle = Throttle.blocking(1_000);
    for (int batch = 0; batch < 6; batch++) {
      throttle.await(100, 0);
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // The first batch goes at once; the five after it wait 100 ms each.
    assertTrue(elapsedMs >= 500, "6 batches of 100 records at 1,000 a second took " + elapsedMs + " ms");
  }

  @Test
  void timersPaceByBytesWhenBytesAreTheTighterBound() {
    long start = System.nanoTime();
    Throttle throttle = new Throttle(vertx, 1_000_000, 1_000);
    Future<Void> last = Future.succeededFuture();
    for (int batch = 0; batch < 4; batch++) {
      last = throttle.acquire(1, 200);
    }
    Await.result(last);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // The last of them starts 600 ms after the throttle was made; a timer counts whole milliseconds.
    assertTrue(elapsedMs >= 599, "4 batches of 200 bytes at 1,000 bytes a second took " + elapsedMs + " ms");
  }

  @Test
  void aRateMustBePositiveAndABlockingThrottleHasNoTimers() {
    assertThrows(IllegalArgumentException.class, () -> new Throttle(vertx, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> Throttle.blocking(-1));
    assertThrows(IllegalStateException.class, () -> Throttle.blocking(1).acquire(1, 0));
  }
}
