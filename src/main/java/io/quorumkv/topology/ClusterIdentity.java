package io.quorumkv.topology;

import io.quorumkv.storage.MetaStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Function;

/**
 * The id of the cluster this node belongs to: made when the cluster is made (a node alone is a
 * cluster too), taken from the board by a node that joins, and kept in the node's meta data, so
 * that it outlives restarts, of every node at once included. A cluster rebuilt on fresh data
 * directories at the same urls gets a new one: that is how a restore tells the two apart. A node
 * whose data predates ids takes the board's, or makes one when the board has none. Where the board
 * and the node disagree (a node with another cluster's data, two halves of a split that merged),
 * the board's wins and is stored. Used from one event loop; its meta calls run on a worker.
 */
final class ClusterIdentity {
  private static final System.Logger LOG = System.getLogger(ClusterIdentity.class.getName());
  static final String META = "cluster.id";

  private final Vertx vertx;
  /** {@link TopologyBoard#claimClusterId} of the node's board. */
  private final Function<String, Future<String>> claimOnBoard;
  private final MetaStore meta;
  private volatile String id;
  private Future<Void> checking = Future.succeededFuture();

  ClusterIdentity(Vertx vertx, Function<String, Future<String>> claimOnBoard, MetaStore meta) {
    this.vertx = vertx;
    this.claimOnBoard = claimOnBoard;
    this.meta = meta;
  }

  /** Agrees on the id with the board: this node's stored one, or a new one, unless the board has one. */
  Future<String> establish() {
    return vertx.executeBlocking(() -> meta.read(META)).compose(stored -> {
      String kept = stored == null ? null : new String(stored, StandardCharsets.UTF_8);
      return claim(kept == null ? UUID.randomUUID().toString() : kept, kept);
    });
  }

  /**
   * Puts this node's id back on a board that lost it, or takes the board's when it differs; skipped
   * while the last check is under way. Called every topology tick.
   */
  void reconcile() {
    if (!checking.isComplete()) {
      return;
    }
    String mine = id;
    checking = claim(mine, mine).<Void>mapEmpty().recover(failure -> {
      LOG.log(System.Logger.Level.DEBUG, "cannot check the cluster id on the board: " + failure.getMessage());
      return Future.succeededFuture();
    });
  }

  /** The cluster's id; null until {@link #establish} completes. */
  String id() {
    return id;
  }

  private Future<String> claim(String candidate, String kept) {
    return claimOnBoard.apply(candidate).compose(agreed -> {
      if (agreed.equals(kept)) {
        id = agreed;
        return Future.succeededFuture(agreed);
      }
      if (kept != null) {
        LOG.log(System.Logger.Level.WARNING, "this node's data was of cluster " + kept + "; the cluster it is in now"
            + " is " + agreed + ", which it takes");
      }
      return vertx.executeBlocking(() -> {
        meta.write(META, agreed.getBytes(StandardCharsets.UTF_8));
        return agreed;
      }).map(stored -> {
        id = stored;
        return stored;
      });
    });
  }
}
