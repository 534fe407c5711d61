package io.quorumkv.replication;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

import java.util.Map;
import java.util.function.Function;

/**
 * Runs a client request against the key's replicas: the first {@code from} nodes of its
 * rendezvous order, called in parallel (this node directly, the others over HTTP). Writes are
 * versioned from this node's clock and answered at the {@code ack}-th success; reads by
 * {@link ReadQuorum}'s rule. A replica that membership sees down fails at once.
 */
public final class Coordinator {
  private static final ReplicaFailure DOWN = new ReplicaFailure("down");

  private final HybridLogicalClock clock;
  private final Rendezvous placement;
  private final LiveNodes liveNodes;
  private final Map<NodeUrl, Replica> replicas;

  /** @param replicas every node of the topology as a replica, this node as a local one */
  public Coordinator(HybridLogicalClock clock, Rendezvous placement, LiveNodes liveNodes, Map<NodeUrl, Replica> replicas) {
    this.clock = clock;
    this.placement = placement;
    this.liveNodes = liveNodes;
    this.replicas = replicas;
  }

  /** The freshest record the quorum saw, which may be a tombstone or expired; null if none had one. */
  public Future<Record> read(byte[] key, Quorum quorum) {
    ReadQuorum collector = new ReadQuorum(quorum);
    for (NodeUrl node : placement.replicasFor(key, quorum.from())) {
      collector.track(node, call(node, replica -> replica.read(key)));
    }
    return collector.outcome().andThen(done -> {
      if (done.succeeded() && done.result() != null) {
        clock.observe(done.result().version());
      }
    });
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
    WriteQuorum collector = new WriteQuorum(quorum);
    for (NodeUrl node : placement.replicasFor(key, quorum.from())) {
      collector.track(node, call(node, replica -> replica.write(key, record)));
    }
    return collector.outcome().map(record.version());
  }

  private <T> Future<T> call(NodeUrl node, Function<Replica, Future<T>> operation) {
    return liveNodes.isAlive(node) ? operation.apply(replicas.get(node)) : Future.failedFuture(DOWN);
  }
}
