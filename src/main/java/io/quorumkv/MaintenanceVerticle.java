package io.quorumkv;

import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.replication.ReplicaDirectory;
import io.quorumkv.replication.StreamObserver;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.StorageService;
import io.quorumkv.topology.TopologySteps;
import io.quorumkv.versioning.ClockLease;
import io.quorumkv.versioning.LeasedClock;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A node's background work, on an event loop of its own: periodic tasks (hint retry, anti-entropy,
 * topology changes and their transfers, clock lease renewal, purge sweep, engine statistics) and
 * hint replay to nodes that join. Undeploying it
 * first tries, for {@code hints.drainOnStopMs}, to deliver pending hints to live replicas, then
 * cancels its timers and closes the replay's connections.
 */
final class MaintenanceVerticle extends VerticleBase {
  private static final System.Logger LOG = System.getLogger(MaintenanceVerticle.class.getName());
  private static final long JOIN_REPLAY_RETRY_MS = 500;
  private static final int JOIN_REPLAY_ATTEMPTS = 60;

  /**
   * The parts whose background work runs here.
   *
   * @param engineStats refreshes the storage engine's statistics
   */
  record Work(HintedHandoff hints, AntiEntropy antiEntropy, TopologySteps topologySteps, LeasedClock clock,
              PurgeSweep sweep, Supplier<Future<?>> engineStats) {
  }

  /** A task run every {@code everyMs}; a failure is logged and the next run goes ahead. */
  private record Task(String name, long everyMs, Supplier<Future<?>> run) {
  }

  private final NodeConfig config;
  private final StorageService storage;
  private final LiveNodes liveNodes;
  private final StreamObserver streams;
  private final HintedHandoff hints;
  private final AntiEntropy antiEntropy;
  private final TopologySteps topologySteps;
  private final List<Task> tasks;
  private volatile boolean stopping;

  MaintenanceVerticle(NodeConfig config, StorageService storage, LiveNodes liveNodes, StreamObserver streams,
                      Work work) {
    this.config = config;
    this.storage = storage;
    this.liveNodes = liveNodes;
    this.streams = streams;
    this.hints = work.hints();
    this.antiEntropy = work.antiEntropy();
    this.topologySteps = work.topologySteps();
    this.tasks = List.of(
        new Task("topology", TopologySteps.TICK_MS, topologySteps::tick),
        new Task("hint retry", config.hints().retryMs(),
            () -> Future.join(hints.replayToLiveTargets(), hints.dropExpiredHintsOfDownTargets())),
        new Task("anti-entropy", config.antiEntropy().intervalMs(), antiEntropy::exchangeDue),
        new Task("clock lease renewal", ClockLease.RENEW_EVERY_MS, work.clock()::renew),
        new Task("engine statistics", NodeMetrics.ENGINE_REFRESH_MS, work.engineStats()),
        new Task("purge sweep", config.storage().sweepIntervalMs(),
            () -> topologySteps.purgeAllowed() ? work.sweep().runOnce() : Future.succeededFuture()));
  }

  @Override
  public Future<?> start() {
    // The replica clients of hint replay and anti-entropy are created here, so their connections live on this context.
    ReplicaDirectory replicas = new ReplicaDirectory(vertx, config, storage, streams);
    antiEntropy.start(vertx, replicas);
    topologySteps.start();
    return hints.start(replicas).onSuccess(loaded -> {
      for (Task task : tasks) {
        vertx.setPeriodic(task.everyMs(), tick -> task.run().get()
            .onFailure(e -> LOG.log(System.Logger.Level.WARNING, task.name() + " failed: " + e.getMessage())));
      }
      liveNodes.onJoined(joined -> {
        if (!stopping) {
          context.runOnContext(v -> hints.replayToJoined(vertx, joined, JOIN_REPLAY_RETRY_MS, JOIN_REPLAY_ATTEMPTS));
        }
      });
    });
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    antiEntropy.stop();
    topologySteps.stop();
    if (config.hints().drainOnStopMs() == 0 || !hints.anyPending()) {
      return Future.succeededFuture();
    }
    return hints.replayToLiveTargets()
        .timeout(config.hints().drainOnStopMs(), TimeUnit.MILLISECONDS)
        .recover(e -> {
          LOG.log(System.Logger.Level.WARNING, "stopping with hints not delivered: " + hints.pendingByTarget());
          return Future.succeededFuture();
        });
  }
}
