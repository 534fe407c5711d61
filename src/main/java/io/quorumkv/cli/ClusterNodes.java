package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What the subcommands that ask every node share: the nodes the cluster lists, and a query parameter. */
final class ClusterNodes {
  private ClusterNodes() {
  }

  /**
   * The nodes to ask: every node {@code GET /v0/cluster} lists, as the cluster names them; with
   * {@code onlyThisOne}, only the first of the urls given that can be reached, as given.
   */
  static List<URI> chosen(NodeClient client, boolean onlyThisOne) {
    NodeClient.Answer cluster = client.send("GET", "/v0/cluster", NodeClient.DEFAULT_TIMEOUT, 200);
    if (onlyThisOne) {
      return List.of(cluster.node());
    }
    return Subcommands.objects(cluster.json().getJsonArray("nodes")).stream()
        .map(node -> node.getString("url")).filter(url -> url != null).map(AdminOptions::nodeUrl).toList();
  }

  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** A node's entry in a JSON answer: its url, and what it answered or its error. */
  static JsonObject entry(URI node) {
    return new JsonObject().put("node", node.toString());
  }
}
