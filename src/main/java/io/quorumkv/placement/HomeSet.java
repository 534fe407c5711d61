package io.quorumkv.placement;

import io.quorumkv.config.NodeUrl;

import java.util.List;

/**
 * A key's home set: the first replica count ({@code Record.replicas()}) nodes of its rendezvous order, the
 * replicas its widest write went to. Copies belong there and nowhere else; a count beyond the
 * topology's size (such as {@code Record.EVERY_NODE}) means every node.
 */
public final class HomeSet {
  private HomeSet() {
  }

  public static List<NodeUrl> of(Rendezvous placement, byte[] key, int replicas) {
    return placement.replicasFor(key, Math.min(replicas, placement.size()));
  }
}
