package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Read repair: once every replica of a read has answered or failed (well after the client got
 * its answer, if need be), the freshest record seen is written, in the background, to every
 * replica that answered with an older version or with nothing. A repair is an ordinary
 * internal write carrying the original version, so it never triggers reads or further repairs.
 */
public final class ReadRepair {
  private static final System.Logger LOG = System.getLogger(ReadRepair.class.getName());

  private final LongAdder written = new LongAdder();
  private final LongAdder failed = new LongAdder();

  /** Waits for all the read's answers, then repairs the stale replicas. */
  void afterAllAnswers(byte[] key, Map<NodeUrl, Future<Record>> answers, Map<NodeUrl, Replica> replicas) {
    Future.join(new java.util.ArrayList<>(answers.values())).onComplete(all -> repair(key, answers, replicas));
  }

  private void repair(byte[] key, Map<NodeUrl, Future<Record>> answers, Map<NodeUrl, Replica> replicas) {
    Record freshest = null;
    for (Future<Record> answer : answers.values()) {
      if (answer.succeeded() && answer.result() != null && answer.result().supersedes(freshest)) {
        freshest = answer.result();
      }
    }
    if (freshest == null) {
      return;
    }
    for (Map.Entry<NodeUrl, Future<Record>> answer : answers.entrySet()) {
      Future<Record> result = answer.getValue();
      if (result.succeeded() && freshest.supersedes(result.result())) {
        NodeUrl node = answer.getKey();
        replicas.get(node).write(key, freshest)
            .onSuccess(ok -> written.increment())
            .onFailure(e -> {
              failed.increment();
              LOG.log(System.Logger.Level.DEBUG, "read repair of " + node + " failed: " + e.getMessage());
            });
      }
    }
  }

  /** Repairs a stale replica accepted since the node started. */
  public long written() {
    return written.sum();
  }

  /** Repairs that failed (the replica did not answer); the next read or a hint may fix the replica. */
  public long failed() {
    return failed.sum();
  }
}
