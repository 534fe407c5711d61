package io.quorumkv.cluster;

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
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private final List<NodeUrl> nodes;
  private final long[] nodeSeeds;

  public Rendezvous(List<NodeUrl> nodes) {
    this.nodes = nodes.stream().sorted(Comparator.comparing(NodeUrl::toString)).toList();
    this.nodeSeeds = new long[this.nodes.size()];
    for (int i = 0; i < nodeSeeds.length; i++) {
      nodeSeeds[i] = mix(fnv1a(this.nodes.get(i).toString().getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** The first {@code count} nodes in the key's order: its replicas for {@code from = count}. */
  public List<NodeUrl> replicasFor(byte[] key, int count) {
    long keyHash = fnv1a(key);
    int n = nodes.size();
    long[] weights = new long[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      weights[i] = mix(keyHash ^ nodeSeeds[i]);
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Long.compareUnsigned(weights[b], weights[a]));
    List<NodeUrl> replicas = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      replicas.add(nodes.get(order[i]));
    }
    return replicas;
  }

  public int size() {
    return nodes.size();
  }

  private static long fnv1a(byte[] bytes) {
    long hash = FNV_OFFSET;
    for (byte b : bytes) {
      hash ^= b & 0xff;
      hash *= FNV_PRIME;
    }
    return hash;
  }

  /** MurmurHash3's 64-bit finaliser: spreads every input bit over the whole word. */
  private static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
