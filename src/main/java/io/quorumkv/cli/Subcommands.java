package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What several subcommands do alike with their arguments and the JSON they read. */
final class Subcommands {
  private Subcommands() {
  }

  static void noArguments(List<String> arguments) {
    if (!arguments.isEmpty()) {
      throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", arguments));
    }
  }

  /** The objects of a JSON list; none for a missing list. */
  static List<JsonObject> objects(JsonArray array) {
    List<JsonObject> objects = new ArrayList<>();
    if (array != null) {
      for (int i = 0; i < array.size(); i++) {
        objects.add(array.getJsonObject(i));
      }
    }
    return objects;
  }

  /** A size for people: {@code 512 B}, {@code 1.5 KB}, {@code 23.3 MB}, {@code 1.2 GB} (powers of 1024). */
  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double size = bytes;
    String[] units = {"KB", "MB", "GB", "TB"};
    int unit = -1;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", size, units[unit]);
  }

  /** A summary of a node's {@code GET /metrics} answer; a text that is not Prometheus' is the node's failure. */
  static JsonObject metricsSummary(NodeClient.Answer metrics) {
    try {
      return MetricsSummary.of(metrics.node().toString(), PrometheusText.parse(metrics.body()));
    } catch (IllegalArgumentException e) {
      throw new AdminFailure(metrics.node() + "/metrics is not Prometheus text: " + e.getMessage());
    }
  }

  /** A topology as {@code POST /admin/cluster/...} answers it, in one line: epoch, stage, change, members. */
  static String topologyLine(JsonObject topology) {
    JsonObject change = topology.getJsonObject("change");
    JsonObject members = topology.getJsonObject("members", new JsonObject());
    return "epoch " + topology.getValue("epoch") + ", " + topology.getString("stage", "-")
        + (change == null ? "" : ", " + change.getString("kind") + " of " + change.getString("node")) + "; members "
        + String.join(", ", members.fieldNames().stream().map(node -> node + " " + members.getValue(node)).toList());
  }

  /** The members of such a topology but {@code node}, as urls. */
  static List<URI> membersBut(JsonObject topology, URI node) {
    String skipped = ChangeProgress.withoutSlash(node.toString());
    return topology.getJsonObject("members", new JsonObject()).fieldNames().stream()
        .filter(member -> !ChangeProgress.withoutSlash(member).equals(skipped)).map(URI::create).toList();
  }

  /** Adds the url unless the list has it already. */
  static void addNew(List<URI> urls, URI url) {
    if (!urls.contains(url)) {
      urls.add(url);
    }
  }
}
