package io.quorumkv.placement;

import io.quorumkv.config.NodeUrl;

import java.util.List;
import java.util.function.Predicate;

/**
 * Where keys' replicas are in the topology in force: what the request path asks of a topology.
 * During a change reads and writes may go to different sets of nodes.
 */
public interface ReplicaPlacement {
  /** The nodes that answer reads. */
  List<NodeUrl> readNodes();

  /** The largest {@code from} a request may ask, and the default one. */
  int readSize();

  /** The {@code from} of a request that names none. */
  int defaultFrom();

  /** The key's replicas for a read at {@code from}. */
  List<NodeUrl> readReplicas(byte[] key, int from);

  /** The placement reads and repairs use. */
  Rendezvous readPlacement();

  /**
   * The sets a write at {@code from} must reach {@code ack} in: one when stable, the old and the
   * new owners during a change.
   */
  List<List<NodeUrl>> writeSets(byte[] key, int from);

  /** Whether conditional writes of the key have no serializer in this step (its first live replica moves). */
  boolean serializerMoves(byte[] key, int from, Predicate<NodeUrl> alive);
}
