package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.function.IntToLongFunction;
import java.util.function.Supplier;

/** Tries a step aimed at one node again, after a pause, while membership sees the node alive. */
public final class RetryWhileAlive {
  private RetryWhileAlive() {
  }

  /**
   * Runs {@code step} until it succeeds, {@code attempts} runs have failed, or {@code node} is no
   * longer alive when one fails; {@code pauseMs} gives the pause after the failure of each attempt,
   * counted from 0. Call on the context the retries should run on.
   */
  public static void run(Vertx vertx, LiveNodes liveNodes, NodeUrl node, int attempts, IntToLongFunction pauseMs,
                         Supplier<Future<?>> step) {
    run(vertx, liveNodes, node, 0, attempts, pauseMs, step);
  }

  private static void run(Vertx vertx, LiveNodes liveNodes, NodeUrl node, int attempt, int attempts,
                          IntToLongFunction pauseMs, Supplier<Future<?>> step) {
    step.get().onFailure(failed -> {
      if (attempt + 1 < attempts && liveNodes.isAlive(node)) {
        vertx.setTimer(pauseMs.applyAsLong(attempt),
            t -> run(vertx, liveNodes, node, attempt + 1, attempts, pauseMs, step));
      }
    });
  }
}
