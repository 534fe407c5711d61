package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.HomeSet;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordChangeListener;
import io.quorumkv.storage.RecordLeaf;
import io.quorumkv.storage.RecordDigest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One {@link HashTree} per other node, over the records this node holds that the other should
 * hold too: keys whose home set ({@link HomeSet}, from the record's replica count) has both.
 * Built from the record index for the topology agreed at start and again for each new one, kept
 * current by every record change in between. Each shape carries the epoch of its topology: what
 * two nodes compare, and what an exchange confirms, holds only between trees of the same epoch.
 */
public final class PeerTrees implements RecordChangeListener {
  private final NodeUrl self;
  private volatile Shape shape;

  /** Not yet shaped for any topology. */
  public static final long UNSHAPED = -1;

  /** The trees of one topology: its epoch, its placement and a tree per other node. */
  private record Shape(long epoch, Rendezvous placement, List<NodeUrl> peers, Map<NodeUrl, HashTree> trees) {
    static Shape of(long epoch, NodeUrl self, List<NodeUrl> cluster) {
      List<NodeUrl> peers = cluster.stream().filter(node -> !node.equals(self)).toList();
      Map<NodeUrl, HashTree> trees = new HashMap<>();
      peers.forEach(peer -> trees.put(peer, new HashTree()));
      return new Shape(epoch, new Rendezvous(cluster), peers, trees);
    }
  }

  public PeerTrees(NodeUrl self, List<NodeUrl> cluster) {
    this.self = self;
    this.shape = Shape.of(UNSHAPED, self, cluster);
  }

  /**
   * Starts over for the nodes of the topology of {@code epoch}, from {@code index}, which feeds
   * every indexed record. Call while no record changes (see {@code RocksStore#whileWritesPaused}).
   */
  public void reshape(long epoch, List<NodeUrl> cluster, Consumer<Consumer<IndexEntry>> index) {
    Shape next = Shape.of(epoch, self, cluster);
    index.accept(entry -> toggle(next, entry.segment(), entry.leaf(), sharers(next, entry.key(), entry.replicas())));
    shape = next;
  }

  /** The epoch of the topology the trees are shaped for; {@link #UNSHAPED} before the first shape. */
  public long epoch() {
    return shape.epoch();
  }

  @Override
  public void changed(byte[] key, RecordLeaf before, RecordLeaf after) {
    Shape current = shape;
    if (current.peers().isEmpty()) {
      return;
    }
    int segment = RecordDigest.segmentOf(key);
    if (before != null) {
      toggle(current, segment, before.leaf(), sharers(current, key, before.replicas()));
    }
    if (after != null) {
      toggle(current, segment, after.leaf(), sharers(current, key, after.replicas()));
    }
  }

  private static void toggle(Shape shape, int segment, long leaf, List<NodeUrl> sharers) {
    for (NodeUrl peer : sharers) {
      shape.trees().get(peer).toggle(segment, leaf);
    }
  }

  /** The other nodes that should hold a key along with this node; none if this node is not in its home set. */
  public List<NodeUrl> sharers(byte[] key, int replicas) {
    return sharers(shape, key, replicas);
  }

  private List<NodeUrl> sharers(Shape shape, byte[] key, int replicas) {
    if (replicas >= shape.placement().size()) {
      return shape.peers();
    }
    List<NodeUrl> home = HomeSet.of(shape.placement(), key, replicas);
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
    return shape.trees().get(peer);
  }

  public List<NodeUrl> peers() {
    return shape.peers();
  }
}
