package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Locale;

/**
 * A node's place in a {@code GET /v0/cluster} view and the change's progress in one line, as the
 * cluster scripts print it: {@code epoch 2  stage streaming  127.0.0.1:8083 joining  records
 * 61200/200000 (30.6%)  bytes 7.1 MB/23.3 MB  transfers 0/3 done}.
 */
final class ChangeProgress {
  static final String ABSENT = "absent";

  private ChangeProgress() {
  }

  /** The node's state in the view's topology; {@link #ABSENT} when it is not listed. */
  static String stateOf(JsonObject cluster, String node) {
    String wanted = withoutSlash(node);
    return Subcommands.objects(cluster.getJsonArray("nodes")).stream()
        .filter(entry -> withoutSlash(entry.getString("url", "")).equals(wanted))
        .map(entry -> entry.getString("state", "?")).findFirst().orElse(ABSENT);
  }

  static boolean stable(JsonObject cluster) {
    return "stable".equals(topology(cluster).getString("stage"));
  }

  static Object epoch(JsonObject cluster) {
    return topology(cluster).getValue("epoch");
  }

  static String line(JsonObject cluster, String node) {
    JsonObject topology = topology(cluster);
    StringBuilder line = new StringBuilder("epoch " + topology.getValue("epoch") + "  stage "
        + topology.getString("stage", "?") + "  " + hostPort(node) + " " + stateOf(cluster, node));
    List<JsonObject> transfers = Subcommands.objects(cluster.getJsonArray("transfers"));
    if (transfers.isEmpty()) {
      line.append("  no transfer");
    } else {
      long sent = total(transfers, "recordsSent");
      long remaining = total(transfers, "recordsRemaining");
      long bytesSent = total(transfers, "bytesSent");
      long bytesRemaining = total(transfers, "bytesRemaining");
      long done = transfers.stream().filter(transfer -> "done".equals(transfer.getString("state"))).count();
      List<JsonObject> failed = transfers.stream().filter(transfer -> "failed".equals(transfer.getString("state"))).toList();
      if (transfers.stream().anyMatch(transfer -> transfer.getLong("recordsRemaining", 0L) < 0)) {
        line.append(String.format(Locale.ROOT, "  records %d of a total still being counted  bytes %s", sent,
            Subcommands.bytes(bytesSent)));
      } else {
        double percent = sent + remaining == 0 ? 100.0 : 100.0 * sent / (sent + remaining);
        line.append(String.format(Locale.ROOT, "  records %d/%d (%.1f%%)  bytes %s/%s", sent, sent + remaining, percent,
            Subcommands.bytes(bytesSent), Subcommands.bytes(bytesSent + bytesRemaining)));
      }
      line.append("  transfers ").append(done).append('/').append(transfers.size()).append(" done");
      if (!failed.isEmpty()) {
        line.append(", ").append(failed.size()).append(" failed (").append(failed.get(0).getValue("lastError")).append(')');
      }
    }
    JsonObject change = topology.getJsonObject("change");
    if (change != null && change.getString("wayOut") != null) {
      line.append("  WAITS FOR DOWN ").append(String.join(", ", downNodes(cluster))).append(": if gone for good, ")
          .append("abort".equals(change.getString("wayOut")) ? "admin abort, then admin remove each" : "admin remove it");
    }
    return line.toString();
  }

  /** The down nodes the change in progress waits for; none when none or no change. */
  static List<String> downNodes(JsonObject cluster) {
    JsonObject change = topology(cluster).getJsonObject("change");
    JsonArray down = change == null ? null : change.getJsonArray("downNodes");
    return down == null ? List.of() : down.stream().map(String::valueOf).toList();
  }

  private static JsonObject topology(JsonObject cluster) {
    return cluster.getJsonObject("topology", new JsonObject());
  }

  private static long total(List<JsonObject> transfers, String key) {
    return transfers.stream().mapToLong(transfer -> transfer.getLong(key, 0L)).sum();
  }

  private static String hostPort(String url) {
    int scheme = url.indexOf("://");
    return withoutSlash(scheme < 0 ? url : url.substring(scheme + 3));
  }

  static String withoutSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
