package io.quorumkv.topology;

/**
 * The board holds a topology this node does not take (it does not verify with the cluster secret,
 * or was written by a node that may not write it): no change starts from it, and the node puts a
 * topology it applied back in its place ({@link ClusterTopology#reconcile}).
 */
public final class UnverifiedTopologyException extends TopologyException {
  UnverifiedTopologyException() {
    super("the topology on the board does not verify (see the log); this node puts back the last one it agreed,"
        + " try again");
  }
}
