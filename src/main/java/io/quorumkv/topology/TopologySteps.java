package io.quorumkv.topology;

import io.quorumkv.antientropy.PeerTrees;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.OpenedStorage;
import io.quorumkv.storage.RocksStore;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What each step of a topology change means on this node, in one place (the steps themselves,
 * and how a change moves through them, are {@link Topology}'s). Ticked every second on the
 * maintenance context:
 * <ul>
 *   <li>any step: the node that drives the change moves a settled step on ({@link ChangeDriver}):
 *   streaming to cutover once every transfer is done, cutover to stable after the cutover grace;</li>
 *   <li>streaming: a receiving node pulls the keys it gains from their sources once the step
 *   settled ({@link TransferReceiver});</li>
 *   <li>stable: the anti-entropy trees are reshaped for the new nodes while no write runs, and
 *   anti-entropy resumes once they are ({@link #antiEntropyAllowed}); purges run only in a stable
 *   topology ({@link #purgeAllowed}); copies this node no longer homes are dropped after the grace
 *   ({@link Cleanup}).</li>
 * </ul>
 * A step has settled when every live node applied it and the replica timeout passed since: one
 * {@link SettledGrace} for every ticker.
 */
public final class TopologySteps {
  private static final System.Logger LOG = System.getLogger(TopologySteps.class.getName());
  private static final long SLOW_TREE_BUILD_MS = 1_000;
  public static final long TICK_MS = 1_000;

  private final Vertx vertx;
  private final List<NodeUrl> confNodes;
  private final ClusterTopology topology;
  private final OpenedStorage opened;
  private final PeerTrees trees;
  private final ChangeDriver driver;
  private final TransferReceiver transfers;
  private final Cleanup cleanup;

  public TopologySteps(Vertx vertx, NodeConfig config, ClusterTopology topology, OpenedStorage opened,
                       StorageService storage, PeerTrees trees, HybridLogicalClock clock, InstantSource wallClock) {
    this.vertx = vertx;
    this.confNodes = config.cluster();
    this.topology = topology;
    this.opened = opened;
    this.trees = trees;
    SettledGrace grace = new SettledGrace(topology, config.replicaTimeoutMs(), wallClock);
    this.driver = new ChangeDriver(topology, grace);
    this.transfers = new TransferReceiver(vertx, config, topology, storage, opened.meta(), clock, grace, wallClock);
    this.cleanup = new Cleanup(topology, storage, opened.meta(), grace, wallClock);
  }

  /**
   * Agrees on the topology with the other nodes (joining it if this node is new) and shapes the
   * anti-entropy trees for it, then for every stable topology that follows.
   */
  public Future<Topology> agree() {
    return topology.start(confNodes)
        .compose(agreed -> reshapeTrees(agreed).map(agreed))
        .onSuccess(agreed -> topology.onChange(next -> {
          if (next.isStable()) {
            reshapeTrees(next).onFailure(e -> LOG.log(System.Logger.Level.WARNING,
                "cannot reshape the anti-entropy trees: " + e.getMessage()));
          }
        }));
  }

  /** Call on the maintenance context, before the first tick. */
  public void start() {
    transfers.start();
  }

  public void stop() {
    transfers.stop();
  }

  public Future<?> tick() {
    return Future.join(driver.tick(), transfers.tick(), cleanup.tick());
  }

  /** Anti-entropy compares trees only in a stable topology, once they are shaped for it. */
  public boolean antiEntropyAllowed() {
    Topology current = topology.current();
    return current.isStable() && trees.epoch() == current.epoch();
  }

  /**
   * The epoch of the topology in force, {@link PeerTrees#UNSHAPED} before it is agreed: the purge
   * gate counts only the confirmations of exchanges at this epoch.
   */
  public long epochInForce() {
    Topology current = topology.current();
    return current == null ? PeerTrees.UNSHAPED : current.epoch();
  }

  /** A purge waits for a stable topology: the confirmations it relies on are per pair of owners. */
  public boolean purgeAllowed() {
    return topology.current().isStable();
  }

  /**
   * Shapes the anti-entropy trees for the topology's nodes, while no write changes a record; the
   * first scan of the record index also teaches the store its stored keys.
   */
  private Future<Void> reshapeTrees(Topology shapedFor) {
    return vertx.executeBlocking(() -> {
      long started = System.nanoTime();
      long[] learned = {0};
      RocksStore records = opened.records();
      records.whileWritesPaused(() -> {
        if (topology.current().epoch() == shapedFor.epoch()) {
          trees.reshape(shapedFor.epoch(), shapedFor.readNodes(),
              visitor -> learned[0] = records.scanIndex(opened.index(), visitor));
        }
      });
      long builtMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      // Worth a line only when it slows the start or a change down noticeably (a large store).
      LOG.log(builtMs >= SLOW_TREE_BUILD_MS ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
          "anti-entropy trees built for epoch " + shapedFor.epoch() + " in " + builtMs + " ms"
              + (learned[0] > 0 ? ", and the " + learned[0] + " stored keys learned" : ""));
      return null;
    });
  }
}
