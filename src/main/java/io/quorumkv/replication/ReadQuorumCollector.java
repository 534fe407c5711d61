package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects one read's replica answers by the read rule of docs/api.md (Riak's {@code notfound_ok = false}):
 * a replica holding nothing does not count toward {@code ack} while another may still answer
 * with a record. The read succeeds with the freshest record once {@code ack} replicas returned
 * a record, or once every replica has answered or failed with at least {@code ack} answers
 * (the freshest record, or null when none had one). It fails as soon as fewer than {@code ack}
 * replicas can still answer. Used from one event loop only.
 */
final class ReadQuorumCollector {
  private final Quorum quorum;
  private final Promise<Record> outcome = Promise.promise();
  private List<String> failures = List.of();
  private int answered;
  private int withRecord;
  private Record freshest;

  ReadQuorumCollector(Quorum quorum) {
    this.quorum = quorum;
  }

  void track(NodeUrl replica, Future<Record> read) {
    read.onComplete(done -> {
      if (done.succeeded()) {
        answered++;
        Record record = done.result();
        if (record != null) {
          withRecord++;
          if (record.supersedes(freshest)) {
            freshest = record;
          }
        }
      } else {
        if (failures.isEmpty()) {
          failures = new ArrayList<>();
        }
        failures.add(replica + ": " + done.cause().getMessage());
      }
      decide();
    });
  }

  private void decide() {
    if (withRecord >= quorum.ack()) {
      outcome.tryComplete(freshest);
    } else if (quorum.from() - failures.size() < quorum.ack()) {
      outcome.tryFail(new NotEnoughReplicasException(quorum.ack(), answered, quorum.from(), failures));
    } else if (answered + failures.size() == quorum.from()) {
      outcome.tryComplete(freshest);
    }
  }

  Future<Record> outcome() {
    return outcome.future();
  }
}
