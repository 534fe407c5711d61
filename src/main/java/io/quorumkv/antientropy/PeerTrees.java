package io.quorumkv.antientropy;

import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.replication.HomeSet;
import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordChangeListener;
import io.quorumkv.storage.RecordDigest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link HashTree} per other node, over the records this node holds that the other should
 * hold too: keys whose home set ({@link HomeSet}, from the record's replica count) has both.
 * Built from the record index at start, then kept current by every record change.
 */
public final class PeerTrees implements RecordChangeListener {
  private final NodeUrl self;
  private final Rendezvous placement;
  private final List<NodeUrl> peers;
  private final Map<NodeUrl, HashTree> trees = new HashMap<>();

  public PeerTrees(NodeUrl self, List<NodeUrl> cluster) {
    this.self = self;
    this.placement = new Rendezvous(cluster);
    this.peers = cluster.stream().filter(node -> !node.equals(self)).toList();
    peers.forEach(peer -> trees.put(peer, new HashTree()));
  }

  /** Adds an indexed record, while the trees are built and nothing writes yet. */
  public void add(IndexEntry entry) {
    toggle(entry.key(), entry.segment(), entry.leaf(), entry.replicas());
  }

  @Override
  public void changed(byte[] key, Record before, Record after) {
    if (peers.isEmpty()) {
      return;
    }
    int segment = RecordDigest.segmentOf(key);
    if (before != null) {
      toggle(segment, RecordDigest.leafOf(key, before), sharers(key, before.replicas()));
    }
    if (after != null) {
      toggle(segment, RecordDigest.leafOf(key, after), sharers(key, after.replicas()));
    }
  }

  private void toggle(byte[] key, int segment, long leaf, int replicas) {
    toggle(segment, leaf, sharers(key, replicas));
  }

  private void toggle(int segment, long leaf, List<NodeUrl> sharers) {
    for (NodeUrl peer : sharers) {
      trees.get(peer).toggle(segment, leaf);
    }
  }

  /** The other nodes that should hold a key along with this node; none if this node is not in its home set. */
  public List<NodeUrl> sharers(byte[] key, int replicas) {
    if (replicas >= placement.size()) {
      return peers;
    }
    List<NodeUrl> home = HomeSet.of(placement, key, replicas);
    if (!home.contains(self)) {
      return List.of();
    }
    List<NodeUrl> sharers = new ArrayList<>(home.size() - 1);
    for (NodeUrl node : home) {
      if (!node.equals(self)) {
        sharers.add(node);
      }
    }
    return sharers;
  }

  public boolean shares(byte[] key, int replicas, NodeUrl peer) {
    return sharers(key, replicas).contains(peer);
  }

  /** The tree shared with {@code peer}; null if it is not another node of the topology. */
  public HashTree tree(NodeUrl peer) {
    return trees.get(peer);
  }

  public List<NodeUrl> peers() {
    return peers;
  }
}
