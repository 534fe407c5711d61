package io.quorumkv.topology;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.MetaStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * This node's view of the agreed topology: the newest one the {@link TopologyBoard} showed,
 * persisted in the meta data on every change (so a restart, even of every node at once, brings
 * the cluster back to it) and reported back as applied. Changes are compare-and-set on the board,
 * so of two changes at once one is refused. It also holds the cluster's id ({@link ClusterIdentity}).
 *
 * <p>The replication factor travels with the topology: the conf's value counts only for a new cluster
 * (and for a topology written before the factor was recorded); a conf that names another is warned
 * about once, at start, and the cluster's is followed, as the conf's {@code cluster} list is.
 */
public final class ClusterTopology {
  private static final System.Logger LOG = System.getLogger(ClusterTopology.class.getName());
  private static final String PERSISTED = "topology";
  private static final String DEPARTED = "topology.departed";
  private static final int MAX_CHANGE_ATTEMPTS = 8;
  private static final int JOIN_ATTEMPTS = 15;
  private static final long JOIN_RETRY_MS = 1_000;

  private final Vertx vertx;
  private final NodeUrl self;
  private final TopologyBoard board;
  private final MetaStore meta;
  private final LiveNodes liveNodes;
  private final ClusterIdentity identity;
  private final int confReplicationFactor;
  private final List<Consumer<Topology>> listeners = new CopyOnWriteArrayList<>();
  private final Promise<Long> departed = Promise.promise();
  private volatile Topology current;
  /** The last report of this node's applied epoch, while it is on its way. */
  private Future<Void> reporting = Future.succeededFuture();

  public ClusterTopology(Vertx vertx, NodeUrl self, TopologyBoard board, MetaStore meta, LiveNodes liveNodes,
                         int confReplicationFactor) {
    this.vertx = vertx;
    this.confReplicationFactor = confReplicationFactor;
    this.self = self;
    this.board = board;
    this.meta = meta;
    this.liveNodes = liveNodes;
    this.identity = new ClusterIdentity(vertx, board::claimClusterId, meta);
  }

  /**
   * Agrees on the topology with the others (this node's persisted one if it is newer than the
   * board's, the conf's nodes if there is none anywhere yet), and joins it if this node is new.
   * Fails with a {@link TopologyException} when this node left the cluster or cannot join now.
   */
  public Future<Topology> start(Collection<NodeUrl> confNodes) {
    board.onTopology(text -> apply(parse(text)));
    if (!board.shared()) {
      // A node without membership can neither gain nor lose nodes: its conf is its topology, whatever its url was before.
      Topology alone = Topology.initial(confNodes, confReplicationFactor);
      return identity.establish().compose(id -> board.compareAndSet(null, alone.encode())).map(alone);
    }
    return vertx.executeBlocking(this::persisted).compose(persisted -> board.start()
        .compose(started -> identity.establish())
        .compose(id -> vertx.executeBlocking(() -> meta.readLong(DEPARTED, 0)))
        .compose(departedAt -> {
          if (departedAt > 0) {
            return Future.failedFuture(new TopologyException("this node left the cluster at epoch " + departedAt
                + "; to add it again, start it with an empty dataDir"));
          }
          return agree(persisted == null ? Topology.initial(confNodes, confReplicationFactor) : persisted,
              persisted != null);
        })
        .compose(agreed -> {
          apply(agreed);
          if (agreed.allNodes().contains(self)) {
            return Future.succeededFuture(agreed);
          }
          if (persisted != null && persisted.allNodes().contains(self)) {
            return Future.failedFuture(new TopologyException("this node was removed from the cluster (epoch "
                + agreed.epoch() + "); to add it again, start it with an empty dataDir"));
          }
          return joinOnceEveryoneIsSeen(1);
        })
        .onSuccess(agreed -> {
          logDifference(agreed, confNodes);
          logFactorDifference(agreed);
        }));
  }

  private Topology joining(Topology on) {
    requireAllAlive(on, null);
    return on.withJoining(self);
  }

  /**
   * Joins; while a member seems down, tries again every second for a while: a node that just
   * started has often not yet heard from every member through Hazelcast, although they are all up.
   * The same while the board holds a topology that does not verify, until the members put theirs back.
   */
  private Future<Topology> joinOnceEveryoneIsSeen(int attempt) {
    return change(this::joining).recover(refused -> {
      boolean passing = refused instanceof NodeDownException || refused instanceof UnverifiedTopologyException;
      if (!passing || attempt >= JOIN_ATTEMPTS) {
        return Future.failedFuture(refused);
      }
      if (attempt == 1) {
        LOG.log(System.Logger.Level.INFO, refused.getMessage() + "; trying again every second for up to "
            + JOIN_ATTEMPTS + " s");
      }
      return vertx.timer(JOIN_RETRY_MS, TimeUnit.MILLISECONDS).compose(waited -> joinOnceEveryoneIsSeen(attempt + 1));
    });
  }

  /** Refuses a change while a node that takes part (any but {@code except}) is down. */
  public void requireAllAlive(Topology on, NodeUrl except) {
    for (NodeUrl node : on.allNodes()) {
      if (!node.equals(except) && !node.equals(self) && !liveNodes.isAlive(node)) {
        throw new NodeDownException(node);
      }
    }
  }

  /**
   * Whether this node sees a majority of the topology's {@link Topology#voters} alive, itself
   * included. A node cut off from the others sees them all down: without the majority, a step it
   * took alone would win or lose when the partition heals.
   */
  public boolean seesMajority(Topology on) {
    List<NodeUrl> voters = on.voters();
    long alive = voters.stream().filter(node -> node.equals(self) || liveNodes.isAlive(node)).count();
    return 2 * alive > voters.size();
  }

  /** What the change in force waits for that is down, and the way out; empty when it waits for no down node. */
  public Optional<StuckChange> stuck() {
    return StuckChange.of(current, board.transfers(), node -> node.equals(self) || liveNodes.isAlive(node));
  }

  /** The board's topology, or {@code candidate} if the board has none or an older one it may replace. */
  private Future<Topology> agree(Topology candidate, boolean mayReplace) {
    return agree(candidate, mayReplace, 1);
  }

  /**
   * A board holding a topology this node does not take gets the persisted one in its place (a
   * topology this node applied: members ahead of it bring the board forward again); a new node,
   * which has none of its own, waits for the members to put theirs back (each does every tick).
   */
  private Future<Topology> agree(Topology candidate, boolean mayReplace, int attempt) {
    return board.read().compose(text -> {
      Topology onBoard = text == null ? null : parse(text);
      if (onBoard != null && (!mayReplace || onBoard.epoch() >= candidate.epoch())) {
        return Future.succeededFuture(onBoard);
      }
      return board.compareAndSet(text, candidate.encode())
          .compose(set -> set ? Future.succeededFuture(candidate) : agree(candidate, mayReplace, attempt));
    }, unreadable -> {
      if (!(unreadable instanceof UnverifiedTopologyException) || attempt >= JOIN_ATTEMPTS) {
        return Future.failedFuture(unreadable);
      }
      Future<?> next = mayReplace ? board.restore(candidate.encode())
          : vertx.timer(JOIN_RETRY_MS, TimeUnit.MILLISECONDS);
      return next.compose(done -> agree(candidate, mayReplace, attempt + 1));
    });
  }

  /**
   * Makes one change: {@code step} applied to the board's topology (a {@link TopologyException}
   * from it fails the change), written if nobody changed the board meanwhile, else tried again.
   */
  public Future<Topology> change(UnaryOperator<Topology> step) {
    return change(step, 1);
  }

  private Future<Topology> change(UnaryOperator<Topology> step, int attempt) {
    return board.read().compose(text -> {
      Topology on = text == null ? current : parse(text);
      Topology next;
      try {
        next = step.apply(on);
      } catch (TopologyException e) {
        return Future.failedFuture(e);
      }
      return board.compareAndSet(text, next.encode()).compose(set -> {
        if (set) {
          apply(next);
          return Future.succeededFuture(next);
        }
        return attempt < MAX_CHANGE_ATTEMPTS ? change(step, attempt + 1)
            : Future.failedFuture(new TopologyException("the topology kept changing; try again"));
      });
    });
  }

  /**
   * Brings the board and this node level: a board that lost the topology or holds an older one
   * (all its members restarted, a partition healed, an old value written again) gets this node's;
   * a newer one is applied. A value this node does not take (forged) is replaced by this node's
   * topology, never built on: a new epoch written over it could fork the cluster from a change
   * the forged value hid, while putting back a topology already applied is at worst behind, and
   * the nodes ahead of it bring the board forward again at their next tick. The cluster's id is
   * levelled the same way, apart.
   */
  public Future<Void> reconcile() {
    identity.reconcile();
    Topology mine = current;
    return board.read().compose(text -> {
      Topology onBoard = text == null ? null : parse(text);
      if (onBoard == null || onBoard.epoch() < mine.epoch()) {
        return board.compareAndSet(text, mine.encode()).mapEmpty();
      }
      apply(onBoard);
      return Future.succeededFuture();
    }, unreadable -> unreadable instanceof UnverifiedTopologyException ? board.restore(mine.encode()).mapEmpty()
        : Future.failedFuture(unreadable));
  }

  private void apply(Topology next) {
    Topology before;
    synchronized (this) {
      before = current;
      // Epochs only grow: an old topology written again (a replay, a board behind) is never applied.
      if (before != null && next.epoch() <= before.epoch()) {
        return;
      }
      current = next;
      board.inForce(next);
    }
    // A node alone has its conf as its only topology: nothing worth a line.
    LOG.log(board.shared() ? System.Logger.Level.INFO : System.Logger.Level.DEBUG, "topology " + next);
    vertx.executeBlocking(() -> {
      meta.write(PERSISTED, current.encode().getBytes(StandardCharsets.UTF_8));
      return null;
    }).onFailure(e -> LOG.log(System.Logger.Level.WARNING, "cannot persist the topology: " + e.getMessage()));
    board.publishApplied(self, next.epoch());
    listeners.forEach(listener -> listener.accept(next));
    if (before != null && before.allNodes().contains(self) && !next.allNodes().contains(self)) {
      vertx.executeBlocking(() -> {
        meta.writeLong(DEPARTED, next.epoch());
        return null;
      }).onComplete(written -> departed.tryComplete(next.epoch()));
    }
  }

  /**
   * Reports this node's applied epoch again, unless the last report is still on its way. A report
   * can be lost (a partition, a merge of two sides of one, which keeps one side's entries), and
   * every step of a change waits for every live node's report: without this, a lost one stalled
   * a change until the node applied the next epoch. Called every topology tick.
   */
  public void republishApplied() {
    if (reporting.isComplete()) {
      reporting = board.publishApplied(self, current.epoch()).recover(e -> Future.succeededFuture());
    }
  }

  /** Blocking. */
  private Topology persisted() {
    byte[] bytes = meta.read(PERSISTED);
    return bytes == null ? null : parse(new String(bytes, StandardCharsets.UTF_8));
  }

  /** A topology's text; one written before the factor was recorded gets the conf's. */
  private Topology parse(String text) {
    return Topology.fromJson(text, confReplicationFactor);
  }

  private void logDifference(Topology agreed, Collection<NodeUrl> confNodes) {
    Set<String> conf = new TreeSet<>(confNodes.stream().map(NodeUrl::toString).toList());
    Set<String> members = new TreeSet<>(agreed.members().keySet().stream().map(NodeUrl::toString).toList());
    if (!conf.equals(members)) {
      LOG.log(System.Logger.Level.WARNING, "the conf's cluster " + conf + " differs from the agreed topology "
          + members + " (epoch " + agreed.epoch() + "); following the agreed one");
    }
  }

  private void logFactorDifference(Topology agreed) {
    if (agreed.replicationFactor() != confReplicationFactor) {
      LOG.log(System.Logger.Level.WARNING, "the conf's replicationFactor " + confReplicationFactor
          + " differs from the cluster's " + agreed.replicationFactor() + ", fixed when the cluster was created;"
          + " following the cluster's");
    }
  }

  /** The id of the cluster this node is in ({@link ClusterIdentity}), the same on every node; set by {@link #start}. */
  public String clusterId() {
    return identity.id();
  }

  public Topology current() {
    return current;
  }

  /** Called, on a thread it must not block, with each newer topology. */
  public void onChange(Consumer<Topology> listener) {
    listeners.add(listener);
  }

  /**
   * Whether every live node taking part in {@code epoch}'s step has applied it. Only the reports of
   * the nodes taking part count: a report about any other node is never asked for.
   */
  public boolean settled(long epoch) {
    Map<NodeUrl, Long> applied = board.applied();
    for (NodeUrl node : current.allNodes()) {
      if (liveNodes.isAlive(node) && applied.getOrDefault(node, 0L) < epoch) {
        return false;
      }
    }
    return true;
  }

  /** Completes with the epoch at which this node left the topology. */
  public Future<Long> departed() {
    return departed.future();
  }

  public NodeUrl self() {
    return self;
  }

  public TopologyBoard board() {
    return board;
  }

  public LiveNodes liveNodes() {
    return liveNodes;
  }
}
