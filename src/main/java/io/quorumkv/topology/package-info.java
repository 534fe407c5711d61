/**
 * Adding and removing nodes: the agreed {@code Topology} (members, states, epoch) on a shared
 * {@code TopologyBoard}, each node's view of it ({@code ClusterTopology}), the transfers that
 * move records to their new owners, the steps that advance a change, and the cleanup after it.
 */
package io.quorumkv.topology;
