package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

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

  /**
   * Lists what {@code GET path} answers on each node (a JSON list), as one table of {@code header}
   * with a row per item ({@code row}, without the node's column) and one JSON document with each
   * node's list under {@code field}; a node that fails is an {@code ERROR} row, and then the whole
   * fails after printing, naming {@code what} could not be listed.
   */
  static void listEach(List<URI> nodes, NodeClient client, Output output, String path, String field, String what,
                       List<String> header, Function<JsonObject, List<String>> row) {
    JsonArray document = new JsonArray();
    List<List<String>> rows = new ArrayList<>();
    int failed = 0;
    String firstFailure = null;
    for (URI node : nodes) {
      try {
        JsonArray items = client.sendTo(node, "GET", path, NodeClient.DEFAULT_TIMEOUT, 200).jsonArray();
        document.add(entry(node).put(field, items));
        for (JsonObject item : Subcommands.objects(items)) {
          List<String> cells = new ArrayList<>(List.of(node.toString()));
          cells.addAll(row.apply(item));
          rows.add(cells);
        }
      } catch (AdminFailure e) {
        failed++;
        firstFailure = firstFailure == null ? e.getMessage() : firstFailure;
        document.add(entry(node).put("error", e.getMessage()));
        List<String> cells = new ArrayList<>(List.of(node.toString(), "ERROR " + e.getMessage()));
        while (cells.size() < header.size()) {
          cells.add("-");
        }
        rows.add(cells);
      }
    }
    output.table(header, rows);
    output.json(document);
    if (failed > 0) {
      throw new AdminFailure("could not list the " + what + " of " + failed + " of " + nodes.size() + " nodes: "
          + firstFailure);
    }
  }

  /** A node's entry in a JSON answer: its url, and what it answered or its error. */
  static JsonObject entry(URI node) {
    return new JsonObject().put("node", node.toString());
  }
}
