package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.util.List;

/** {@code admin cluster}: the topology as a node sees it, with the change under way and its transfers. */
final class ClusterSubcommand implements Subcommand {
  @Override
  public String name() {
    return "cluster";
  }

  @Override
  public String synopsis() {
    return "cluster                 the topology: epoch, stage, change, every node's state, the transfers";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    Subcommands.noArguments(arguments);
    JsonObject cluster = client.getJson("/v0/cluster");
    output.json(cluster);
    JsonObject topology = cluster.getJsonObject("topology", new JsonObject());
    JsonObject change = topology.getJsonObject("change");
    output.line("cluster " + cluster.getString("clusterId", "-") + ", as " + cluster.getString("self", "-")
        + " sees it: epoch " + topology.getValue("epoch") + ", " + topology.getString("stage", "-")
        + (change == null ? "" : ", " + change.getString("kind") + " of " + change.getString("node")
        + (change.getJsonArray("downNodes", io.vertx.core.json.JsonArray.of()).isEmpty() ? ""
        : ", waiting for down nodes " + change.getJsonArray("downNodes").encode()
        + (change.getString("wayOut") == null ? "" : " (way out: " + change.getString("wayOut") + ")"))));
    output.table(List.of("NODE", "STATE", "ALIVE"), Subcommands.objects(cluster.getJsonArray("nodes")).stream()
        .map(node -> List.of(node.getString("url") + (node.getBoolean("self", false) ? " (this)" : ""),
            node.getString("state", "-"), node.getBoolean("alive", false) ? "up" : "DOWN"))
        .toList());
    List<JsonObject> transfers = Subcommands.objects(cluster.getJsonArray("transfers"));
    if (!transfers.isEmpty()) {
      output.line("");
      output.table(List.of("FROM", "TO", "STATE", "SENT", "REMAINING", "LAST ERROR"), transfers.stream()
          .map(transfer -> List.of(transfer.getString("from", "-"), transfer.getString("to", "-"),
              transfer.getString("state", "-"), String.valueOf(transfer.getValue("recordsSent", "-")),
              remaining(transfer.getValue("recordsRemaining")), String.valueOf(transfer.getValue("lastError", "-"))))
          .toList());
    }
  }

  private static String remaining(Object records) {
    return records instanceof Number number && number.longValue() < 0 ? "counting" : String.valueOf(records);
  }
}
