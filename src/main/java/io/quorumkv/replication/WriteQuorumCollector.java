package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the outcomes of one write's replica calls: succeeds at the {@code ack}-th success,
 * fails with {@link NotEnoughReplicasException} as soon as so many replicas failed that
 * {@code ack} successes can no longer happen. Outcomes after that change nothing.
 * Used from one event loop only.
 */
final class WriteQuorumCollector {
  private final Quorum quorum;
  private final Promise<Void> outcome = Promise.promise();
  private final List<String> failures = new ArrayList<>();
  private int successes;

  WriteQuorumCollector(Quorum quorum) {
    this.quorum = quorum;
  }

  void track(NodeUrl replica, Future<Void> write) {
    write.onComplete(done -> {
      if (done.succeeded()) {
        successes++;
        if (successes == quorum.ack()) {
          outcome.tryComplete();
        }
      } else {
        failures.add(replica + ": " + done.cause().getMessage());
        if (quorum.from() - failures.size() < quorum.ack()) {
          outcome.tryFail(new NotEnoughReplicasException(quorum.ack(), successes, quorum.from(), failures));
        }
      }
    });
  }

  Future<Void> outcome() {
    return outcome.future();
  }
}
