package io.quorumkv.replication;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs a client request against the key's replicas: the first {@code from} nodes of its
 * rendezvous order, called in parallel (this node directly, the others over HTTP). Writes are
 * versioned from this node's clock and answered at the {@code ack}-th success; a replica that
 * misses one gets a hint. Reads answer by {@link ReadQuorumCollector}'s rule, then {@link ReadRepair}
 * fixes stale replicas. A replica that membership sees down fails at once.
 */
public final class Coordinator {
  private static final ReplicaFailure DOWN = new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down");

  private final HybridLogicalClock clock;
  private final Rendezvous placement;
  private final LiveNodes liveNodes;
  private final Map<NodeUrl, Replica> replicas;
  private final NodeUrl self;
  private final MissedWrites missedWrites;
  private final ReadRepair readRepair;
  private final ReplicationObserver observer;

  /** @param replicas every node of the topology as a replica, {@code self} as a local one */
  public Coordinator(HybridLogicalClock clock, Rendezvous placement, LiveNodes liveNodes, Map<NodeUrl, Replica> replicas,
                     NodeUrl self, MissedWrites missedWrites, ReadRepair readRepair, ReplicationObserver observer) {
    this.clock = clock;
    this.placement = placement;
    this.liveNodes = liveNodes;
    this.replicas = replicas;
    this.self = self;
    this.missedWrites = missedWrites;
    this.readRepair = readRepair;
    this.observer = observer;
  }

  /** The freshest record the quorum saw, which may be a tombstone or expired; null if none had one. */
  public Future<Record> read(byte[] key, Quorum quorum) {
    ReadQuorumCollector collector = new ReadQuorumCollector(quorum);
    Map<NodeUrl, Future<Record>> answers = new LinkedHashMap<>();
    for (NodeUrl node : placement.replicasFor(key, quorum.from())) {
      Future<Record> answer = call(node, replica -> replica.read(key));
      answers.put(node, answer);
      collector.track(node, answer);
    }
    if (answers.size() > 1) {
      readRepair.afterAllAnswers(key, answers, replicas);
    }
    return collector.outcome().andThen(done -> {
      if (done.succeeded() && done.result() != null) {
        clock.observe(done.result().version());
      }
    }).andThen(this::countQuorumFailure);
  }

  /** Writes the value; completes with its version once {@code ack} replicas stored it. */
  public Future<Long> put(byte[] key, byte[] value, long expiresAt, Quorum quorum) {
    return write(key, Record.live(clock.next(), value, expiresAt), quorum);
  }

  /** Writes a tombstone; completes with its version once {@code ack} replicas stored it. */
  public Future<Long> delete(byte[] key, Quorum quorum) {
    return write(key, Record.tombstone(clock.next()), quorum);
  }

  private Future<Long> write(byte[] key, Record record, Quorum quorum) {
    WriteQuorumCollector collector = new WriteQuorumCollector(quorum);
    for (NodeUrl node : placement.replicasFor(key, quorum.from())) {
      Future<Void> written = call(node, replica -> replica.write(key, record));
      if (!node.equals(self)) {
        written.onFailure(missed -> missedWrites.missed(node, key, record));
      }
      collector.track(node, written);
    }
    return collector.outcome().andThen(this::countQuorumFailure).map(record.version());
  }

  private <T> Future<T> call(NodeUrl node, Function<Replica, Future<T>> operation) {
    Future<T> call = liveNodes.isAlive(node) ? operation.apply(replicas.get(node)) : Future.failedFuture(DOWN);
    return call.andThen(done -> {
      if (done.succeeded()) {
        observer.replicaCallSucceeded();
      } else {
        observer.replicaCallFailed(ReplicaFailure.kindOf(done.cause()));
      }
    });
  }

  private void countQuorumFailure(io.vertx.core.AsyncResult<?> outcome) {
    if (outcome.failed() && outcome.cause() instanceof NotEnoughReplicasException) {
      observer.notEnoughReplicas();
    }
  }
}
