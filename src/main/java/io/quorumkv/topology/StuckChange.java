package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.json.JsonObject;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * A change that waits for nodes that are down: a transfer of its streaming step not yet done
 * whose source or receiver is down cannot move until that node is back. If it is gone for good,
 * the way out is {@link WayOut#REMOVE removing} it when it is the joining or leaving node itself
 * (the change then ends, or goes on without it), else {@link WayOut#ABORT aborting} the change
 * ({@link Topology#aborted}), after which the dead node can be removed like any other.
 *
 * @param down the down nodes the change waits for, sorted
 */
public record StuckChange(Topology.Change change, long epoch, List<NodeUrl> down, WayOut wayOut) {
  public enum WayOut { ABORT, REMOVE }

  /** What {@code topology}'s change waits for that {@code alive} says is down; empty when nothing. */
  static Optional<StuckChange> of(Topology topology, Map<String, JsonObject> transfers, Predicate<NodeUrl> alive) {
    TreeSet<NodeUrl> down = new TreeSet<>(Comparator.comparing(NodeUrl::toString));
    for (NodeUrl receiver : topology.receivers()) {
      for (NodeUrl source : topology.sourcesFor(receiver)) {
        if (!TransferProgress.done(transfers.get(TransferProgress.id(topology.epoch(), source, receiver)))) {
          List.of(source, receiver).stream().filter(alive.negate()).forEach(down::add);
        }
      }
    }
    if (down.isEmpty()) {
      return Optional.empty();
    }
    Topology.Change change = topology.change();
    boolean onlyItsOwnNode = down.size() == 1 && down.first().equals(change.node());
    return Optional.of(new StuckChange(change, topology.epoch(), List.copyOf(down),
        onlyItsOwnNode && change.kind() != Topology.Kind.REMOVE ? WayOut.REMOVE : WayOut.ABORT));
  }
}
