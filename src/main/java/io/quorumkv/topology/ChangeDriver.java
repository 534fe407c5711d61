package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;

import java.util.function.UnaryOperator;

/**
 * Moves a change through its steps. One node drives (the live member whose URL sorts first; any
 * node can take over, since each step is a compare-and-set from the epoch it read): from
 * streaming to cutover once every transfer is done, from cutover to stable once every live node
 * applied the cutover and writes begun before it had their replica timeout. Every tick it also
 * brings the board level with this node's topology. Runs on the maintenance context.
 */
final class ChangeDriver {
  private static final System.Logger LOG = System.getLogger(ChangeDriver.class.getName());

  /** What a conditional write begun before the cutover may take beyond its quorum read and write. */
  private static final long CONDITIONAL_MARGIN_MS = 1_000;

  private final ClusterTopology topology;
  private final SettledGrace grace;
  private boolean ticking;

  ChangeDriver(ClusterTopology topology, SettledGrace grace) {
    this.topology = topology;
    this.grace = grace;
  }

  /** One look at the change under way; a tick while the last one still waits on the board is skipped, not queued. */
  Future<?> tick() {
    if (ticking) {
      return Future.succeededFuture();
    }
    ticking = true;
    return advance().onComplete(done -> ticking = false);
  }

  private Future<?> advance() {
    topology.republishApplied();
    return topology.reconcile().<Object>compose(level -> {
      Topology current = topology.current();
      if (current.isStable() || !drives(current) || !grace.over(current.epoch(), waitMs(current))) {
        return Future.succeededFuture();
      }
      if (current.stage() == Topology.Stage.STREAMING
          && TransferProgress.allDone(current, topology.board().transfers())) {
        return step(current, Topology::cutOver);
      }
      if (current.stage() == Topology.Stage.CUTOVER) {
        return step(current, Topology::settle);
      }
      return Future.succeededFuture();
    });
  }


  /**
   * Leaving the cutover also waits out the conditional writes an old first replica admitted
   * before it applied the cutover (a quorum read and a write), so that the new first replica,
   * which takes them over at stable, never runs a key's conditional writes beside it.
   */
  private long waitMs(Topology current) {
    return current.stage() == Topology.Stage.CUTOVER ? 2 * grace.graceMs() + CONDITIONAL_MARGIN_MS : grace.graceMs();
  }

  /**
   * Whether this node drives the change: the first live member in URL order, on the side of a
   * majority of the members. A node cut off from the others sees them all down; without the
   * majority it would step the change alone, and its step would win or lose when the partition
   * heals (seen in the fault harness: a joiner cut off took the cutover on its own).
   */
  private boolean drives(Topology current) {
    if (!topology.seesMajority(current)) {
      return false;
    }
    for (NodeUrl node : current.voters()) {
      if (topology.liveNodes().isAlive(node)) {
        return node.equals(topology.self());
      }
    }
    return false;
  }

  private Future<Object> step(Topology from, UnaryOperator<Topology> step) {
    return topology.change(on -> {
      if (on.epoch() != from.epoch()) {
        throw new TopologyException("the topology moved on to epoch " + on.epoch());
      }
      return step.apply(on);
    }).onSuccess(next -> LOG.log(System.Logger.Level.INFO, "change " + from.change() + ": " + Topology.name(from.stage())
        + " done, now " + Topology.name(next.stage()) + " at epoch " + next.epoch()))
        .<Object>map(next -> next)
        .recover(e -> e instanceof TopologyException ? Future.succeededFuture() : Future.failedFuture(e));
  }
}
