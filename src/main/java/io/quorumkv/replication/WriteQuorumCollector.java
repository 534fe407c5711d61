package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the outcomes of one write's replica calls: succeeds at the {@code ack}-th replica that
 * stored the write; fails as soon as {@code ack} stores can no longer happen, with
 * {@link WriteSupersededException} when replicas refused it for holding a newer record, else
 * with {@link NotEnoughReplicasException}. Outcomes after that change nothing.
 * Used from one event loop only.
 */
final class WriteQuorumCollector {
  private final Quorum quorum;
  private final Promise<Void> outcome = Promise.promise();
  private final List<String> failures = new ArrayList<>();
  private int stored;
  private int superseded;
  private long keptVersion;

  WriteQuorumCollector(Quorum quorum) {
    this.quorum = quorum;
  }

  void track(NodeUrl replica, Future<WriteAnswer> write) {
    write.onComplete(done -> {
      if (done.succeeded() && done.result().stored()) {
        stored++;
        if (stored == quorum.ack()) {
          outcome.tryComplete();
        }
        return;
      }
      if (done.succeeded()) {
        superseded++;
        keptVersion = Math.max(keptVersion, done.result().keptVersion());
      } else {
        failures.add(replica + ": " + done.cause().getMessage());
      }
      if (quorum.from() - failures.size() - superseded >= quorum.ack()) {
        return;
      }
      outcome.tryFail(superseded > 0
          ? new WriteSupersededException(quorum.ack(), stored, superseded, keptVersion)
          : new NotEnoughReplicasException(quorum.ack(), stored, quorum.from(), failures));
    });
  }

  Future<Void> outcome() {
    return outcome.future();
  }
}
