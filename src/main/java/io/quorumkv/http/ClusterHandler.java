package io.quorumkv.http;

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
 * {@code GET /v0/cluster}: every node of the topology and whether membership sees it alive,
 * with this node's hinted handoff and read repair counts.
 */
final class ClusterHandler {
  private final NodeConfig config;
  private final LiveNodes liveNodes;
  private final HintedHandoff hints;
  private final ReadRepair readRepair;

  ClusterHandler(NodeConfig config, LiveNodes liveNodes, HintedHandoff hints, ReadRepair readRepair) {
    this.config = config;
    this.liveNodes = liveNodes;
    this.hints = hints;
    this.readRepair = readRepair;
  }

  void handle(RoutingContext ctx) {
    JsonArray nodes = new JsonArray();
    for (NodeUrl node : config.cluster()) {
      nodes.add(new JsonObject().put("url", node.toString()).put("alive", liveNodes.isAlive(node))
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
            .encodePrettily());
  }

  private JsonObject pendingHints() {
    JsonObject pending = new JsonObject();
    hints.pendingByTarget().forEach((target, count) -> pending.put(target.toString(), count));
    return pending;
  }
}
