package io.quorumkv.http;

import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.ExchangeResult;
import io.quorumkv.antientropy.PeerStatus;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.replication.ReadRepair;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /v0/cluster}: every node of the topology, its state and whether membership sees it
 * alive, with this node's hinted handoff, read repair and anti-entropy state.
 */
final class ClusterHandler {
  /** A node's place in the topology; every node is a full member until nodes can join and leave. */
  private static final String NORMAL = "normal";

  private final NodeConfig config;
  private final LiveNodes liveNodes;
  private final HintedHandoff hints;
  private final ReadRepair readRepair;
  private final AntiEntropy antiEntropy;

  ClusterHandler(NodeConfig config, LiveNodes liveNodes, HintedHandoff hints, ReadRepair readRepair,
                 AntiEntropy antiEntropy) {
    this.config = config;
    this.liveNodes = liveNodes;
    this.hints = hints;
    this.readRepair = readRepair;
    this.antiEntropy = antiEntropy;
  }

  void handle(RoutingContext ctx) {
    JsonArray nodes = new JsonArray();
    for (NodeUrl node : config.cluster()) {
      nodes.add(new JsonObject().put("url", node.toString()).put("state", NORMAL)
          .put("alive", liveNodes.isAlive(node))
          .put("self", node.equals(config.url())));
    }
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(new JsonObject()
            .put("self", config.url().toString())
            .put("nodes", nodes)
            .put("hints", new JsonObject()
                .put("pending", pendingHints())
                .put("stored", hints.stored())
                .put("delivered", hints.delivered())
                .put("dropped", hints.dropped()))
            .put("readRepairs", new JsonObject()
                .put("written", readRepair.written())
                .put("failed", readRepair.failed()))
            .put("antiEntropy", antiEntropy())
            .encodePrettily());
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
