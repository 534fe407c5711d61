package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.replication.HintedHandoff;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;

import java.time.InstantSource;

/** What the HTTP layer of a node works with; shared by all its HTTP verticles. */
public record ApiContext(NodeConfig config, StorageService storage, HybridLogicalClock clock, Rendezvous placement,
                         LiveNodes liveNodes, HintedHandoff hints, ReadRepair readRepair, NodeMetrics metrics,
                         AdminApi admin, InstantSource wallClock) {
}
