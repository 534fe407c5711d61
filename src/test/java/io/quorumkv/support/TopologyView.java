package io.quorumkv.support;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one node's {@code GET /v0/cluster} says of the topology: the agreed epoch, stage and change
 * in progress, each node's state and liveness, and the transfers of the change.
 *
 * @param states every member's state ({@code joining}, {@code normal}, {@code leaving}) by url
 * @param alive  what the node's membership says of each listed node, by url
 */
public record TopologyView(String self, long epoch, String stage, String changeKind, String changeNode,
                           Map<String, String> states, Map<String, Boolean> alive, List<Transfer> transfers) {

  public record Transfer(String from, String to, long epoch, String state, long recordsSent, long bytesSent,
                         long recordsRemaining, long bytesRemaining, String lastError) {
    /** Identifies the transfer across polls (one per sender, receiver and epoch). */
    public String id() {
      return from + " -> " + to + " @" + epoch;
    }
  }

  /** The node's view; an AssertionError when it does not answer 200 (or not at all). */
  public static TopologyView fetch(Http node) {
    HttpResponse<byte[]> response = node.get("/v0/cluster");
    if (response.statusCode() != 200) {
      throw new AssertionError("GET /v0/cluster answered " + response.statusCode() + ": " + Http.text(response));
    }
    return of(new JsonObject(Http.text(response)));
  }

  public static TopologyView of(JsonObject cluster) {
    JsonObject topology = cluster.getJsonObject("topology", new JsonObject());
    JsonObject change = topology.getJsonObject("change");
    Map<String, String> states = new TreeMap<>();
    Map<String, Boolean> alive = new TreeMap<>();
    for (Object entry : cluster.getJsonArray("nodes", new JsonArray())) {
      JsonObject node = (JsonObject) entry;
      alive.put(node.getString("url"), node.getBoolean("alive"));
      if (node.getString("state") != null) {
        states.put(node.getString("url"), node.getString("state"));
      }
    }
    List<Transfer> transfers = new ArrayList<>();
    for (Object entry : cluster.getJsonArray("transfers", new JsonArray())) {
      JsonObject t = (JsonObject) entry;
      transfers.add(new Transfer(t.getString("from"), t.getString("to"), t.getLong("epoch", -1L), t.getString("state"),
          t.getLong("recordsSent", 0L), t.getLong("bytesSent", 0L), t.getLong("recordsRemaining", 0L),
          t.getLong("bytesRemaining", 0L), t.getString("lastError")));
    }
    return new TopologyView(cluster.getString("self"), topology.getLong("epoch", -1L), topology.getString("stage"),
        change == null ? null : change.getString("kind"), change == null ? null : change.getString("node"), states, alive,
        transfers);
  }

  /** Stage {@code stable}, no change in progress, exactly these members, each {@code normal}. */
  public boolean stableWith(Set<String> members) {
    return "stable".equals(stage) && changeKind == null && states.keySet().equals(members)
        && states.values().stream().allMatch("normal"::equals);
  }

  /** One line: epoch, stage, change, states and each transfer's progress. */
  public String describe() {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "epoch %d %s", epoch, stage));
    if (changeKind != null) {
      line.append(" (").append(changeKind).append(' ').append(changeNode).append(')');
    }
    line.append(", states ").append(states);
    for (Transfer t : transfers) {
      line.append(String.format(Locale.ROOT, "; %s -> %s %s %,d sent %,d remaining%s", port(t.from()), port(t.to()),
          t.state(), t.recordsSent(), t.recordsRemaining(), t.lastError() == null ? "" : " (" + t.lastError() + ")"));
    }
    return line.toString();
  }

  private static String port(String url) {
    return url == null ? "?" : url.substring(url.lastIndexOf(':') + 1);
  }
}
