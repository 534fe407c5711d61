package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * How far one transfer (the records one source sends one receiver in one change) has come, as
 * the receiver publishes it: a JSON object under the id {@code epoch|from|to}.
 */
public final class TransferProgress {
  public enum State { WAITING, STREAMING, DONE, FAILED }

  private TransferProgress() {
  }

  public static String id(long epoch, NodeUrl from, NodeUrl to) {
    return epoch + "|" + from + "|" + to;
  }

  public static JsonObject of(long epoch, NodeUrl from, NodeUrl to, State state, long records, long bytes,
                              long recordsRemaining, long bytesRemaining, String lastError) {
    return new JsonObject()
        .put("from", from.toString())
        .put("to", to.toString())
        .put("epoch", epoch)
        .put("state", Topology.name(state))
        .put("recordsSent", records)
        .put("bytesSent", bytes)
        .put("recordsRemaining", recordsRemaining)
        .put("bytesRemaining", bytesRemaining)
        .put("lastError", lastError);
  }

  /**
   * Whether every transfer of the topology's streaming step is done: only the reports of the
   * transfers the topology itself names count, those between the change's receivers and sources.
   */
  public static boolean allDone(Topology topology, Map<String, JsonObject> transfers) {
    for (NodeUrl receiver : topology.receivers()) {
      for (NodeUrl source : topology.sourcesFor(receiver)) {
        if (!done(transfers.get(id(topology.epoch(), source, receiver)))) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether a transfer's published progress (null when none) says it is done. */
  static boolean done(JsonObject progress) {
    return progress != null && Topology.name(State.DONE).equals(progress.getString("state"));
  }

  /**
   * The transfers of the change under way (its streaming step) between nodes taking part in it,
   * sorted; none when stable. A report about a node that takes no part is left out.
   */
  public static JsonArray ofChange(Topology topology, Map<String, JsonObject> transfers) {
    long streamingEpoch = switch (topology.stage()) {
      case STREAMING -> topology.epoch();
      case CUTOVER -> topology.epoch() - 1;
      case STABLE -> -1;
    };
    JsonArray list = new JsonArray();
    transfers.values().stream()
        .filter(progress -> progress.getLong("epoch") == streamingEpoch && takesPart(topology, progress))
        .sorted(Comparator.comparing((JsonObject progress) -> progress.getString("to"))
            .thenComparing(progress -> progress.getString("from")))
        .forEach(list::add);
    return list;
  }

  private static boolean takesPart(Topology topology, JsonObject progress) {
    List<String> nodes = topology.allNodes().stream().map(NodeUrl::toString).toList();
    return nodes.contains(progress.getString("from")) && nodes.contains(progress.getString("to"));
  }
}
