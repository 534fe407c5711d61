package io.quorumkv;

import io.quorumkv.range.ClusterRange;
import io.quorumkv.replication.ConditionalWrites;
import io.quorumkv.replication.Coordinator;

/**
 * One event loop's request services, built once on that loop by the wiring ({@code Node}) and handed to
 * the public API and to each route mount that needs them: the coordinator (with its replica clients),
 * compare-and-set on this node as a key's first replica, and the cluster-wide range (with its clients).
 * Each holds connections bound to the loop, so none is shared between loops.
 */
record LoopServices(Coordinator coordinator, ConditionalWrites conditionalWrites, ClusterRange clusterRange) {
}
