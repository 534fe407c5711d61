package io.quorumkv.replication;

import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;

import java.util.List;

/**
 * A key's home set: the first {@link Record#replicas()} nodes of its rendezvous order, the
 * replicas its widest write went to. Copies belong there and nowhere else; a count beyond the
 * topology's size (such as {@link Record#EVERY_NODE}) means every node.
 */
public final class HomeSet {
  private HomeSet() {
  }

  public static List<NodeUrl> of(Rendezvous placement, byte[] key, int replicas) {
    return placement.replicasFor(key, Math.min(replicas, placement.size()));
  }
}
