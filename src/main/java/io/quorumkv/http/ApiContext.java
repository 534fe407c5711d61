package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.range.ClusterRange;
import io.quorumkv.replication.ConditionalWrites;
import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.EntityQuery;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;

import java.time.InstantSource;
import java.util.List;

/**
 * What the public API of one HTTP verticle works with: its event loop's services, built once by the
 * wiring ({@code coordinator}, {@code conditionalWrites}, {@code clusterRange}), and node-wide parts.
 *
 * @param query     reads a request's quorum and ttl against the topology in force
 * @param admission the bounds on what the node takes on at once
 * @param requests  told of every request answered (rate and latency by route, method, status)
 * @param tokens    who may use which routes
 * @param mounts    the routes of the node's other parts (internal protocols, admin, metrics, restore, the cluster's state)
 */
public record ApiContext(NodeConfig config, Coordinator coordinator, ConditionalWrites conditionalWrites,
                         ClusterRange clusterRange, EntityQuery query, StorageService storage, Admission admission,
                         RequestMetrics requests, ApiTokens tokens, InstantSource wallClock, List<RouteMount> mounts) {
}
