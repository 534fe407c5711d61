package io.quorumkv.cluster;

import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

import static io.quorumkv.support.Await.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link JoinRetry} with attempts that fail the way a refused Hazelcast member does (the reason in
 * Hazelcast's log, "Node failed to start!" as the failure), on a fake clock and a timer that runs
 * at once and records its pauses.
 */
class JoinRetryTest {
  private static final Logger HAZELCAST_SECURITY = Logger.getLogger("com.hazelcast.security");
  private static final String REFUSAL = "[127.0.0.1]:5701 [dev] [5.3.8] Reason of failure for node join: Cluster state"
      + " either is locked or doesn't allow new members to join -> ClusterState{state=FROZEN, lock=LockGuard{lockOwner=null,"
      + " lockOwnerId='null', lockExpiryTime=0}}";

  private final List<Long> pauses = new ArrayList<>();
  private final AtomicLong nanos = new AtomicLong();
  private final AtomicInteger failedAttempts = new AtomicInteger();

  /** On the fake clock: each refused attempt takes its {@code attemptTakesMs}, each pause its length. */
  private JoinRetry retry() {
    return new JoinRetry(Duration.ofMinutes(5), (delayMs, task) -> {
      pauses.add(delayMs);
      nanos.addAndGet(delayMs * 1_000_000);
      task.run();
    }, nanos::get, () -> 0.5);
  }

  private Future<String> refused(long attemptTakesMs) {
    failedAttempts.incrementAndGet();
    nanos.addAndGet(attemptTakesMs * 1_000_000);
    HAZELCAST_SECURITY.log(Level.SEVERE, REFUSAL);
    return Future.failedFuture(new IllegalStateException("Node failed to start!"));
  }

  @Test
  void aJoinRefusedForTheClusterStateIsTriedAgainWithGrowingPauses() {
    String joined = result(retry().join(() -> failedAttempts.get() < 3 ? refused(100) : Future.succeededFuture("in")));
    assertEquals("in", joined);
    assertEquals(3, failedAttempts.get());
    assertEquals(List.of(1_000L, 2_000L, 4_000L), pauses);
  }

  @Test
  void anotherFailureEndsTheJoinAtOnce() {
    IllegalStateException other = new IllegalStateException("Node failed to start!");
    Future<String> joined = retry().join(() -> {
      failedAttempts.incrementAndGet();
      return Future.failedFuture(other);
    });
    assertSame(other, joined.cause());
    assertEquals(1, failedAttempts.get());
    assertEquals(List.of(), pauses);
  }

  @Test
  void refusalsEndOnceTheNextAttemptWouldComePastTheBound() {
    Future<String> joined = retry().join(() -> refused(20_000));
    assertTrue(joined.failed());
    assertEquals("Hazelcast refused the join for 301 s (cluster state FROZEN)", joined.cause().getMessage());
    assertEquals(9, failedAttempts.get());
    assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 30_000L, 30_000L, 30_000L), pauses);
  }

  @Test
  void pausesDoubleFromOneSecondUpToThirtyWithAQuarterOfJitter() {
    JoinRetry low = new JoinRetry(Duration.ofMinutes(5), (delayMs, task) -> { }, System::nanoTime, () -> 0.0);
    JoinRetry high = new JoinRetry(Duration.ofMinutes(5), (delayMs, task) -> { }, System::nanoTime, () -> 0.999_999);
    assertEquals(750, low.pauseMs(0));
    assertEquals(1_250, high.pauseMs(0));
    assertEquals(22_500, low.pauseMs(9));
    assertEquals(37_500, high.pauseMs(40));
  }
}
