package io.quorumkv.http;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** {@code GET /v0/cluster}: every node of the topology and whether membership sees it alive. */
final class ClusterHandler {
  private final NodeConfig config;
  private final LiveNodes liveNodes;

  ClusterHandler(NodeConfig config, LiveNodes liveNodes) {
    this.config = config;
    this.liveNodes = liveNodes;
  }

  void handle(RoutingContext ctx) {
    JsonArray nodes = new JsonArray();
    for (NodeUrl node : config.cluster()) {
      nodes.add(new JsonObject().put("url", node.toString()).put("alive", liveNodes.isAlive(node))
          .put("self", node.equals(config.url())));
    }
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(new JsonObject().put("self", config.url().toString()).put("nodes", nodes).encodePrettily());
  }
}
