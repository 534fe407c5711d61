package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Where the nodes agree on the topology: one shared value changed only by compare-and-set, and
 * what each node reports about it (the epoch it applied, the progress of its transfers).
 * Listeners run on a thread they must not block.
 */
public interface TopologyBoard {

  /** Whether other nodes share this board; a node alone keeps no topology apart from its conf. */
  default boolean shared() {
    return true;
  }

  /** Starts following the board; completes once the caches below hold what it has. */
  Future<Void> start();

  /**
   * The agreed topology's text, null when there is none yet; fails with an
   * {@link UnverifiedTopologyException} when the board holds one this node does not take.
   */
  Future<String> read();

  /** Replaces {@code expected} (null: nothing yet) with {@code next}; false when the board held something else. */
  Future<Boolean> compareAndSet(String expected, String next);

  /**
   * Puts {@code text}, a topology this node applied, in place of a value the board holds that this
   * node does not take (or of none); false when the board holds one it takes by now. Never
   * replaces a value written meanwhile, so it never undoes a change.
   */
  Future<Boolean> restore(String text);

  /**
   * The cluster's id: the one on the board, or {@code candidate} once put there when the board has
   * none (a board this node alone reads takes it as it is).
   */
  Future<String> claimClusterId(String candidate);

  /** Tells the board the topology in force on this node, which says who may write the next one. */
  default void inForce(Topology topology) {
  }

  /** Called with the topology's text each time the board's value changes. */
  void onTopology(Consumer<String> listener);

  /**
   * Tells the others that {@code node} now works by the topology of {@code epoch}; completes once
   * the board took it (a report lost in a partition is sent again, see {@link ClusterTopology#republishApplied}).
   */
  Future<Void> publishApplied(NodeUrl node, long epoch);

  /** The epoch each node last said it applied. */
  Map<NodeUrl, Long> applied();

  /** Publishes the progress of one transfer, under its own id. */
  void publishTransfer(String id, JsonObject progress);

  /** The progress of every transfer published, by id. */
  Map<String, JsonObject> transfers();

  /** A board only this node reads: a node without membership. */
  static TopologyBoard local() {
    return new LocalBoard();
  }
}
