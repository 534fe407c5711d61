package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Predicate;

/**
 * Follows a topology change through {@code GET /v0/cluster} of the first of some nodes that answers,
 * a progress line a second, until a look says it is done. Blocks the command's own thread.
 */
final class ChangeFollower {
  static final Duration POLL = Duration.ofSeconds(1);
  /** How long no node may answer before the follower gives up. */
  static final Duration SILENCE = Duration.ofSeconds(60);
  private static final Duration LOOK_TIMEOUT = Duration.ofSeconds(5);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final NodeClient client;
  private final Output output;
  private final Duration timeout;

  ChangeFollower(NodeClient client, Output output, Duration timeout) {
    this.client = client;
    this.output = output;
    this.timeout = timeout;
  }

  /**
   * Looks at the cluster through {@code watchers} until {@code done} says so (it may throw an
   * {@link AdminFailure} to stop), printing each look's progress line for {@code node}; returns the
   * last look. An AdminFailure after the timeout, or when no watcher answered for {@link #SILENCE}.
   */
  JsonObject follow(List<URI> watchers, String node, Predicate<JsonObject> done) {
    long start = System.nanoTime();
    long lastAnswer = start;
    String lastFailure = "";
    while (true) {
      JsonObject cluster = null;
      try {
        cluster = client.sendToAny(watchers, "GET", "/v0/cluster", LOOK_TIMEOUT, 200).json();
      } catch (AdminFailure e) {
        lastFailure = e.getMessage();
      }
      long now = System.nanoTime();
      if (cluster != null) {
        lastAnswer = now;
        output.line(LocalTime.now().format(TIME) + " " + ChangeProgress.line(cluster, node));
        if (done.test(cluster)) {
          return cluster;
        }
      } else if (Duration.ofNanos(now - lastAnswer).compareTo(SILENCE) >= 0) {
        throw new AdminFailure("no node answered GET /v0/cluster for " + SILENCE.toSeconds() + " s: " + lastFailure);
      }
      if (Duration.ofNanos(now - start).compareTo(timeout) >= 0) {
        throw new AdminFailure("the change is not done after " + timeout.toSeconds()
            + " s; it goes on (docs/operations.md#when-a-transfer-stalls)");
      }
      pause();
    }
  }

  static void pause() {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminFailure("interrupted");
    }
  }
}
