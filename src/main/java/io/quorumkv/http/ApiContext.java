package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.replication.InFlightWrites;
import io.quorumkv.replication.KeyLocks;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.replication.ReplicationObserver;
import io.quorumkv.storage.DiskAlarm;
import io.quorumkv.storage.StorageService;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;

import java.time.InstantSource;
import java.util.List;

/**
 * What the HTTP layer of a node works with; shared by all its HTTP verticles.
 *
 * @param mounts      routes of other parts of the node (the internal protocols, admin, metrics)
 * @param peerAuthorization lets on only internal requests with the cluster secret
 * @param antiEntropy the exchanges this node starts, for their state
 * @param topology    the agreed topology, as this node last saw it
 * @param keyLocks    serialize the conditional writes this node runs as a key's first replica
 * @param requests    told of every request answered (rate and latency by route, method, status)
 * @param admission   the bounds on what the node takes on at once
 * @param diskAlarm   raised while the node's disk is full
 * @param tokens      who may use which routes
 */
public record ApiContext(NodeConfig config, StorageService storage, HybridLogicalClock clock, ClusterTopology topology,
                         LiveNodes liveNodes, HintedHandoff hints, ReadRepair readRepair,
                         ReplicationObserver replicationObserver, InFlightWrites inFlightWrites,
                         List<RouteMount> mounts, PeerAuthorization peerAuthorization, InstantSource wallClock,
                         AntiEntropy antiEntropy, KeyLocks keyLocks, RequestMetrics requests,
                         Admission admission, DiskAlarm diskAlarm, ApiTokens tokens) {
}
