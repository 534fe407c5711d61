package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;

/** A change refused because a node that takes part is down (or not yet seen up). */
public final class NodeDownException extends TopologyException {
  NodeDownException(NodeUrl node) {
    super("node " + node + " is down: a change needs every node up");
  }
}
