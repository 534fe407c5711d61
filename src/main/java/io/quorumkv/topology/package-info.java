/**
 * Adding and removing nodes: the agreed {@code Topology} (members, states, epoch, and the
 * placements of each step) on a shared {@code TopologyBoard} ({@code HazelcastBoard} in a cluster),
 * each node's view of it ({@code ClusterTopology}, which also holds the cluster's id,
 * {@code ClusterIdentity}), and {@code TopologySteps}, the one owner of what
 * each step means on this node: the driver's steps ({@code ChangeDriver}), the transfers that
 * move records to their new owners ({@code TransferReceiver}, {@code TransferSession}, answered by
 * {@code TransferHandler}), the cleanup after them, and the anti-entropy and purge gates. A change
 * that waits for a node that is down says so, with the way out ({@code StuckChange}). With a
 * cluster secret, what a node writes to the board is sealed ({@code HazelcastSeal}), and a value that
 * does not verify, or whose writer may not write it, is ignored, counted ({@code BoardObserver})
 * and logged ({@code BoardRejections}).
 */
package io.quorumkv.topology;
