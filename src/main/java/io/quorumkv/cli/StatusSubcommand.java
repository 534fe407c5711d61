package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code admin status}: every node of the topology (as the first url that answers sees it), each
 * asked itself for its {@code /v0/cluster} and {@code /metrics}: up or down as membership sees it
 * and whether it answered, its state, data size, keys, requests served, hints waiting for it and
 * held by it, and its alarms. A node that does not answer is a row, not a failure.
 */
final class StatusSubcommand implements Subcommand {
  /** How long one node may take to answer before its row says it does not. */
  static final Duration NODE_TIMEOUT = Duration.ofSeconds(5);

  @Override
  public String name() {
    return "status";
  }

  @Override
  public String synopsis() {
    return "status                  every node: up or down, state, data size, keys, requests, hints, alarms";
  }

  /** What one node said of itself; both null when it did not answer. */
  private record Own(JsonObject cluster, JsonObject metrics) {
    boolean answered() {
      return cluster != null;
    }
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    Subcommands.noArguments(arguments);
    JsonObject view = client.getJson("/v0/cluster");
    List<JsonObject> nodes = Subcommands.objects(view.getJsonArray("nodes"));
    Map<String, Own> own = new LinkedHashMap<>();
    for (JsonObject node : nodes) {
      own.put(node.getString("url"), ask(client, node.getString("url")));
    }
    JsonArray rows = new JsonArray();
    for (JsonObject node : nodes) {
      rows.add(row(node, own));
    }
    JsonObject topology = view.getJsonObject("topology", new JsonObject());
    JsonObject status = new JsonObject().put("clusterId", view.getString("clusterId"))
        .put("seenBy", view.getString("self")).put("epoch", topology.getValue("epoch"))
        .put("stage", topology.getString("stage")).put("change", topology.getJsonObject("change")).put("nodes", rows);
    output.json(status);
    print(status, nodes.stream().anyMatch(node -> node.containsKey("zone")), output);
  }

  private static Own ask(NodeClient client, String url) {
    URI node = URI.create(url);
    NodeClient.Answer cluster = client.getIfAnswering(node, "/v0/cluster", NODE_TIMEOUT);
    if (cluster == null) {
      return new Own(null, null);
    }
    NodeClient.Answer metrics = client.getIfAnswering(node, "/metrics", NODE_TIMEOUT);
    return new Own(cluster.json(), metrics == null ? null : Subcommands.metricsSummary(metrics));
  }

  private static JsonObject row(JsonObject node, Map<String, Own> own) {
    String url = node.getString("url");
    Own self = own.get(url);
    long hintsTo = 0;
    for (Own other : own.values()) {
      if (other.answered()) {
        hintsTo += pendingOf(other.cluster()).getLong(url, 0L);
      }
    }
    JsonObject row = new JsonObject().put("url", url);
    if (node.containsKey("zone")) {
      row.put("zone", node.getValue("zone"));
    }
    row.put("alive", node.getBoolean("alive", false)).put("answers", self.answered())
        .put("state", node.getString("state")).put("hintsTo", hintsTo);
    if (self.answered()) {
      long hintsFrom = pendingOf(self.cluster()).stream().mapToLong(entry -> ((Number) entry.getValue()).longValue()).sum();
      row.put("hintsFrom", hintsFrom).put("alarms", new JsonArray(Subcommands.objects(self.cluster().getJsonArray("alarms"))
          .stream().map(alarm -> alarm.getString("kind")).toList()));
    }
    if (self.metrics() != null) {
      JsonObject storage = self.metrics().getJsonObject("storage");
      row.put("dataBytes", storage.getLong("sstBytes") + storage.getLong("memtableBytes"))
          .put("keysEstimate", storage.getLong("keysEstimate"))
          .put("requests", Subcommands.objects(self.metrics().getJsonArray("requests")).stream()
              .mapToLong(entry -> entry.getLong("count")).sum());
    }
    return row;
  }

  private static JsonObject pendingOf(JsonObject cluster) {
    return cluster.getJsonObject("hints", new JsonObject()).getJsonObject("pending", new JsonObject());
  }

  private static void print(JsonObject status, boolean zones, Output output) {
    JsonObject change = status.getJsonObject("change");
    output.line("cluster " + status.getString("clusterId", "-") + ", epoch " + status.getValue("epoch") + ", "
        + status.getString("stage", "-") + (change == null ? "" : " (" + change.getString("kind") + " of "
        + change.getString("node") + ")") + ", as " + status.getString("seenBy", "-") + " sees it");
    List<String> header = new ArrayList<>(List.of("NODE"));
    if (zones) {
      header.add("ZONE");
    }
    header.addAll(List.of("STATUS", "STATE", "LOAD", "KEYS", "REQUESTS", "HINTS TO", "HINTS FROM", "ALARMS"));
    List<List<String>> rows = new ArrayList<>();
    for (JsonObject row : Subcommands.objects(status.getJsonArray("nodes"))) {
      List<String> cells = new ArrayList<>(List.of(row.getString("url")));
      if (zones) {
        cells.add(String.valueOf(row.getValue("zone", "-")));
      }
      boolean alive = row.getBoolean("alive");
      boolean answers = row.getBoolean("answers");
      cells.add(alive == answers ? (alive ? "UP" : "DOWN") : alive ? "UP, no answer" : "DOWN, answers");
      cells.add(row.getString("state", "-"));
      cells.add(row.containsKey("dataBytes") ? Subcommands.bytes(row.getLong("dataBytes")) : "-");
      cells.add(row.containsKey("keysEstimate") ? "~" + row.getLong("keysEstimate") : "-");
      cells.add(row.containsKey("requests") ? String.valueOf(row.getLong("requests")) : "-");
      cells.add(String.valueOf(row.getLong("hintsTo")));
      cells.add(row.containsKey("hintsFrom") ? String.valueOf(row.getLong("hintsFrom")) : "-");
      JsonArray alarms = row.getJsonArray("alarms");
      cells.add(alarms == null ? "-" : alarms.isEmpty() ? "none" : String.join(",", alarms.stream().map(String::valueOf).toList()));
      rows.add(cells);
    }
    output.table(header, rows);
  }
}
