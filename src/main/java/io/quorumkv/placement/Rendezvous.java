package io.quorumkv.placement;

import io.quorumkv.config.NodeUrl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Rendezvous (highest random weight) placement: for each key, every node gets a pseudo-random
 * weight from (node, key), and the key's replicas are the nodes in descending weight order.
 * Computed from the static topology only, so every node agrees, whatever the order of the
 * conf's list and whoever is alive; the replicas for {@code from = F} are a prefix of those
 * for any larger {@code F}.
 */
public final class Rendezvous {
  private final List<NodeUrl> nodes;
  private final long[] nodeSeeds;

  public Rendezvous(List<NodeUrl> nodes) {
    if (nodes.size() > Long.SIZE) {
      throw new IllegalArgumentException("at most " + Long.SIZE + " nodes, got " + nodes.size());
    }
    this.nodes = nodes.stream().sorted(Comparator.comparing(NodeUrl::toString)).toList();
    this.nodeSeeds = new long[this.nodes.size()];
    for (int i = 0; i < nodeSeeds.length; i++) {
      nodeSeeds[i] = Hashes.mix(Hashes.fnv1a(this.nodes.get(i).placementKey().getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** The first {@code count} nodes in the key's order: its replicas for {@code from = count}. */
  public List<NodeUrl> replicasFor(byte[] key, int count) {
    long keyHash = Hashes.fnv1a(key);
    int n = nodes.size();
    long[] weights = new long[n];
    for (int i = 0; i < n; i++) {
      weights[i] = Hashes.mix(keyHash ^ nodeSeeds[i]);
    }
    // A selection of the heaviest, one pass each: count is a handful of nodes, and this runs on every request.
    List<NodeUrl> replicas = new ArrayList<>(count);
    long taken = 0;
    for (int rank = 0; rank < count; rank++) {
      int best = -1;
      for (int i = 0; i < n; i++) {
        if ((taken & (1L << i)) == 0 && (best < 0 || Long.compareUnsigned(weights[i], weights[best]) > 0)) {
          best = i;
        }
      }
      taken |= 1L << best;
      replicas.add(nodes.get(best));
    }
    return replicas;
  }

  public int size() {
    return nodes.size();
  }
}
