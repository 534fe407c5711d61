package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;

import java.util.Set;

/** Which nodes of the topology membership currently sees alive. */
public interface LiveNodes {

  boolean isAlive(NodeUrl node);

  Set<NodeUrl> alive();

  /**
   * Calls the listener, on a membership thread that it must not block, when a node joins;
   * returns what stops that.
   */
  default Runnable onJoined(java.util.function.Consumer<NodeUrl> listener) {
    return () -> {
    };
  }

  /** A single node: only itself, always alive. */
  static LiveNodes onlySelf(NodeUrl self) {
    return new LiveNodes() {
      @Override
      public boolean isAlive(NodeUrl node) {
        return node.equals(self);
      }

      @Override
      public Set<NodeUrl> alive() {
        return Set.of(self);
      }
    };
  }
}
