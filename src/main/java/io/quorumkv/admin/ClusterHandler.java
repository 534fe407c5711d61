package io.quorumkv.admin;

import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.ExchangeResult;
import io.quorumkv.antientropy.PeerStatus;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.http.ApiRouter;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.storage.DiskAlarm;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.StuckChange;
import io.quorumkv.topology.Topology;
import io.quorumkv.topology.TransferProgress;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RouteMount;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Optional;

/**
 * {@code GET /v0/cluster}: the cluster's id, the agreed topology (epoch, replication factor and the default
 * {@code from} it gives, stage, change under way), every node with
 * its state and whether membership sees it alive, the transfers of a change under way, and this
 * node's hinted handoff, read repair and anti-entropy state. A view over the node's parts, like
 * {@link NodeMetrics}, so it sits here rather than in {@code http}; the public API owns its path and the
 * role it needs ({@link ApiRouter#CLUSTER}). Node-wide: every event loop's router mounts the same one.
 */
public final class ClusterHandler implements RouteMount {

  private final NodeConfig config;
  private final ClusterTopology topology;
  private final LiveNodes liveNodes;
  private final HintedHandoff hints;
  private final ReadRepair readRepair;
  private final AntiEntropy antiEntropy;
  private final DiskAlarm diskAlarm;

  public ClusterHandler(NodeConfig config, ClusterTopology topology, LiveNodes liveNodes, HintedHandoff hints,
                        ReadRepair readRepair, AntiEntropy antiEntropy, DiskAlarm diskAlarm) {
    this.config = config;
    this.topology = topology;
    this.liveNodes = liveNodes;
    this.hints = hints;
    this.readRepair = readRepair;
    this.antiEntropy = antiEntropy;
    this.diskAlarm = diskAlarm;
  }

  @Override
  public void mount(Router router) {
    router.get(ApiRouter.CLUSTER).handler(this::handle);
    router.route(ApiRouter.CLUSTER).handler(ApiErrors.methodNotAllowed("GET"));
  }

  private void handle(RoutingContext ctx) {
    Topology current = topology.current();
    JsonArray nodes = new JsonArray();
    for (NodeUrl node : current.allNodes()) {
      Topology.State state = current.members().get(node);
      nodes.add(new JsonObject().put("url", node.toString())
          .put("state", state == null ? "leaving" : Topology.name(state))
          .put("alive", liveNodes.isAlive(node))
          .put("self", node.equals(config.url())));
    }
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(new JsonObject()
            .put("self", config.url().toString())
            .put("clusterId", topology.clusterId())
            .put("topology", new JsonObject()
                .put("epoch", current.epoch())
                .put("replicationFactor", current.replicationFactor())
                .put("defaultFrom", current.defaultFrom())
                .put("stage", Topology.name(current.stage()))
                .put("change", current.change() == null ? null : change(current.change())))
            .put("nodes", nodes)
            .put("transfers", TransferProgress.ofChange(current, topology.board().transfers()))
            .put("hints", new JsonObject()
                .put("pending", pendingHints())
                .put("stored", hints.stored())
                .put("delivered", hints.delivered())
                .put("dropped", hints.dropped()))
            .put("readRepairs", new JsonObject()
                .put("written", readRepair.written())
                .put("failed", readRepair.failed()))
            .put("antiEntropy", antiEntropy())
            .put("alarms", alarms())
            .encodePrettily());
  }

  /**
   * The change in progress, with the down nodes it waits for (empty when none) and the way out
   * if they are gone for good: {@code abort} or {@code remove}, null while it waits for no down node.
   */
  private JsonObject change(Topology.Change change) {
    Optional<StuckChange> stuck = topology.stuck();
    return new JsonObject()
        .put("kind", Topology.name(change.kind()))
        .put("node", change.node().toString())
        .put("downNodes", new JsonArray(stuck.map(StuckChange::down).orElse(List.of()).stream()
            .map(NodeUrl::toString).toList()))
        .put("wayOut", stuck.map(found -> Topology.name(found.wayOut())).orElse(null));
  }

  /** This node's alarms: a full disk, while it lasts. */
  private JsonArray alarms() {
    JsonArray alarms = new JsonArray();
    long since = diskAlarm.raisedAt();
    if (since != 0) {
      alarms.add(new JsonObject().put("kind", "disk_full").put("node", config.url().toString()).put("since", since)
          .put("message", "the disk is full: this node takes no writes until space is freed; reads go on"));
    }
    return alarms;
  }

  private JsonObject antiEntropy() {
    JsonObject peers = new JsonObject();
    antiEntropy.status().forEach((peer, status) -> peers.put(peer.toString(), exchangeState(status)));
    return new JsonObject().put("intervalMs", antiEntropy.intervalMs()).put("peers", peers);
  }

  private static JsonObject exchangeState(PeerStatus status) {
    JsonObject state = new JsonObject()
        .put("initiator", status.initiator())
        .put("state", status.exchanging() ? "exchanging" : "idle")
        .put("lastStartedAt", millisOrNull(status.lastStartedAt()))
        .put("lastCompletedAt", millisOrNull(status.lastCompletedAt()))
        .put("lastDurationMs", status.lastDurationMs())
        .put("keysRepaired", status.keysRepaired())
        .put("exchangesCompleted", status.completed())
        .put("exchangesFailed", status.failed())
        .put("lastError", status.lastError())
        .put("confirmedAt", millisOrNull(status.confirmedAt()));
    ExchangeResult last = status.last();
    if (last != null) {
      state.put("last", new JsonObject()
          .put("branchesDiffering", last.branchesDiffering())
          .put("segmentsDiffering", last.segmentsDiffering())
          .put("keysDiffering", last.keysDiffering())
          .put("sent", last.pushed())
          .put("received", last.pulled()));
    }
    return state;
  }

  private static Long millisOrNull(long millis) {
    return millis == 0 ? null : millis;
  }

  private JsonObject pendingHints() {
    JsonObject pending = new JsonObject();
    hints.pendingByTarget().forEach((target, count) -> pending.put(target.toString(), count));
    return pending;
  }
}
