package io.quorumkv;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.admin.JfrRecordings;
import io.quorumkv.admin.MembershipAdmin;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.admission.Admission;
import io.quorumkv.antientropy.TreeHandler;
import io.quorumkv.backup.BackupAdmin;
import io.quorumkv.backup.BackupDownloads;
import io.quorumkv.backup.NodeBackups;
import io.quorumkv.backup.RestoreHandler;
import io.quorumkv.antientropy.TreeService;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.Role;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.range.InternalRangeHandler;
import io.quorumkv.replication.ConditionalEndpoints;
import io.quorumkv.replication.EntityQuery;
import io.quorumkv.replication.InternalHandler;
import io.quorumkv.storage.StorageService;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.TransferHandler;
import io.quorumkv.ui.Dashboard;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.List;

/**
 * The routes every HTTP verticle of a node serves beside the public API, each part mounting its own: those
 * that need nothing of the event loop, built once, and those handed the loop's services.
 */
final class Routes {
  private Routes() {
  }

  /**
   * The internal protocols (each from its feature's package, behind the cluster secret: see
   * {@code peer.InternalEndpoint}), metrics, JFR sessions, membership commands, backups and the dashboard.
   */
  static List<RouteMount> besideTheApi(Vertx vertx, NodeConfig config, StorageService storage, HybridLogicalClock clock,
                                       ClusterTopology topology, TreeService trees, Admission admission,
                                       PeerAuthorization peers, NodeMetrics metrics, JfrRecordings recordings,
                                       NodeBackups backups, ApiTokens tokens) {
    AdminApi admin = new AdminApi(vertx, config, recordings, peers, () -> topology.current().allNodes());
    return List.of(
        new InternalHandler(storage, clock, admission, config.maxBodyBytes(), peers),
        new TransferHandler(storage, topology, peers),
        new InternalRangeHandler(storage, peers),
        new TreeHandler(trees, admission, peers),
        metrics, admin, new MembershipAdmin(topology),
        new BackupAdmin(vertx, config, backups, () -> topology.current().allNodes(), peers),
        new BackupDownloads(vertx, backups),
        new Dashboard(!tokens.open(Role.ADMIN), !tokens.open(Role.READ)));
  }

  /**
   * The routes that run requests through the event loop's services: the nodes' side of a restore (it
   * coordinates each record's writes, and lists the cluster's keys) and the conditional writes other nodes
   * forward here as a key's first replica.
   */
  static List<RouteMount> onTheLoop(Vertx loop, NodeConfig config, LoopServices services, ClusterTopology topology,
                                    EntityQuery query, Admission admission, PeerAuthorization peers,
                                    InstantSource wallClock) {
    return List.of(
        new RestoreHandler(loop, config, services.coordinator(), topology, services.clusterRange(), admission,
            wallClock),
        new ConditionalEndpoints(services.conditionalWrites(), query, peers, admission, config.maxBodyBytes()));
  }
}
