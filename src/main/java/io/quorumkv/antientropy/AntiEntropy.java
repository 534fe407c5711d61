package io.quorumkv.antientropy;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.Throttle;
import io.quorumkv.replication.ReplicaDirectory;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BooleanSupplier;

/**
 * Active anti-entropy: every {@code antiEntropy.intervalMs} while the topology is stable, this node runs an {@link Exchange}
 * with each live node of the topology whose URL sorts after its own (so each pair exchanges
 * once per interval), one exchange per peer at a time. Runs on the maintenance verticle's context.
 */
public final class AntiEntropy {
  private static final System.Logger LOG = System.getLogger(AntiEntropy.class.getName());

  private final NodeConfig config;
  private final PeerTrees trees;
  private final TreeService service;
  private final Confirmations confirmations;
  private final StorageService storage;
  private final HybridLogicalClock clock;
  private final LiveNodes liveNodes;
  private final InstantSource wallClock;
  private final Map<NodeUrl, Progress> progress = new ConcurrentSkipListMap<>(Comparator.comparing(NodeUrl::toString));
  private final BooleanSupplier enabled;

  // Set by start, on the maintenance context.
  private Context context;
  private TreeClient client;
  private Throttle throttle;
  private ReplicaDirectory replicas;

  public AntiEntropy(NodeConfig config, PeerTrees trees, TreeService service, Confirmations confirmations,
                     StorageService storage, HybridLogicalClock clock, LiveNodes liveNodes, InstantSource wallClock,
                     BooleanSupplier enabled) {
    this.config = config;
    this.trees = trees;
    this.service = service;
    this.confirmations = confirmations;
    this.storage = storage;
    this.clock = clock;
    this.liveNodes = liveNodes;
    this.wallClock = wallClock;
    this.enabled = enabled;
    followPeers();
  }

  /** Keeps a progress entry for each peer of the trees' topology, and none for nodes gone from it. */
  private void followPeers() {
    List<NodeUrl> peers = trees.peers();
    progress.keySet().retainAll(peers);
    for (NodeUrl peer : peers) {
      progress.computeIfAbsent(peer, p -> new Progress(config.url().toString().compareTo(p.toString()) < 0));
    }
  }

  /** Call on the context that will run the exchanges, with replicas created on it. */
  public void start(Vertx vertx, ReplicaDirectory replicas) {
    this.context = vertx.getOrCreateContext();
    this.replicas = replicas;
    this.client = new TreeClient(vertx, config);
    this.throttle = new Throttle(vertx, config.antiEntropy().recordsPerSecond(), config.antiEntropy().bytesPerSecond());
  }

  public void stop() {
    if (client != null) {
      client.close();
    }
  }

  /**
   * Starts an exchange with every live peer this node initiates with and is not exchanging with
   * yet; completes when they end. A failed exchange is logged and counted here, not failed again.
   */
  public Future<?> exchangeDue() {
    if (!enabled.getAsBoolean()) {
      return Future.succeededFuture();
    }
    followPeers();
    List<Future<?>> running = new ArrayList<>();
    progress.forEach((peer, state) -> {
      if (state.initiator && !state.exchanging && liveNodes.isAlive(peer) && trees.tree(peer) != null) {
        running.add(exchange(peer, state).otherwiseEmpty());
      }
    });
    return Future.join(running);
  }

  /**
   * An exchange with every other node of the topology now, started here whichever side the schedule
   * has start the pair's exchanges, each once an exchange with that peer already running here has
   * ended; completes once all have ended, with each peer's outcome (a peer down is one that failed).
   * Fails with an IllegalStateException while a topology change holds anti-entropy back. Call from
   * any thread: the exchanges run on the maintenance context.
   */
  public Future<List<PeerRepair>> repairNow() {
    if (context == null) {
      return Future.failedFuture(new IllegalStateException("anti-entropy has not started yet"));
    }
    Promise<List<PeerRepair>> repaired = Promise.promise();
    context.runOnContext(v -> repairEveryPeer().onComplete(repaired));
    return repaired.future();
  }

  private Future<List<PeerRepair>> repairEveryPeer() {
    if (!enabled.getAsBoolean()) {
      return Future.failedFuture(new IllegalStateException(
          "anti-entropy is held back until the topology change in progress has settled: repair once it is stable"));
    }
    followPeers();
    List<Future<PeerRepair>> repairs = new ArrayList<>();
    progress.forEach((peer, state) -> repairs.add(repairWith(peer, state)));
    return Future.all(repairs).map(all -> all.<PeerRepair>list());
  }

  private Future<PeerRepair> repairWith(NodeUrl peer, Progress state) {
    if (!liveNodes.isAlive(peer)) {
      return Future.succeededFuture(PeerRepair.failed(peer, 0, "down: membership does not see it alive"));
    }
    long started = wallClock.millis();
    return state.latest.transform(previous -> trees.tree(peer) == null
            ? Future.failedFuture(new IllegalStateException("no hash tree shared with it (the topology changed)"))
            : exchange(peer, state))
        .transform(outcome -> Future.succeededFuture(outcome.succeeded()
            ? PeerRepair.repaired(peer, outcome.result(), wallClock.millis() - started)
            : PeerRepair.failed(peer, wallClock.millis() - started, reason(outcome.cause()))));
  }

  private Future<ExchangeResult> exchange(NodeUrl peer, Progress state) {
    long started = wallClock.millis();
    state.started(started);
    long epoch = trees.epoch();
    Exchange exchange = new Exchange(peer, epoch, trees.tree(peer), client, service, replicas.get(peer), storage, clock,
        throttle, wallClock, config.storage().purgeGraceMs());
    Future<ExchangeResult> run = exchange.run(confirmations).andThen(outcome -> {
      long tookMs = wallClock.millis() - started;
      if (outcome.succeeded()) {
        ExchangeResult result = outcome.result();
        state.completed(wallClock.millis(), tookMs, result);
        if (result.keysDiffering() > 0) {
          LOG.log(System.Logger.Level.INFO, "anti-entropy with " + peer + ": " + result.segmentsDiffering()
              + " segments and " + result.keysDiffering() + " keys differed, " + result.pushed() + " records sent, "
              + result.pulled() + " received in " + tookMs + " ms");
        }
      } else {
        String reason = reason(outcome.cause());
        state.failed(tookMs, reason);
        LOG.log(System.Logger.Level.WARNING, "anti-entropy with " + peer + " failed after " + tookMs + " ms: " + reason);
      }
    });
    state.latest = run;
    return run;
  }

  private static String reason(Throwable failure) {
    return failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
  }

  /**
   * Every other node's anti-entropy state, in topology order: the peers of the topology in force, also
   * while exchanges are off or not yet due (a node that left is gone from it, a joiner is in it).
   */
  public Map<NodeUrl, PeerStatus> status() {
    followPeers();
    Map<NodeUrl, PeerStatus> status = new LinkedHashMap<>();
    progress.forEach((peer, state) -> status.put(peer, state.snapshot(confirmations.confirmedAt(peer))));
    return status;
  }

  public long intervalMs() {
    return config.antiEntropy().intervalMs();
  }

  /** The exchanges of one pair that this node started; written on the maintenance context, read anywhere. */
  private static final class Progress {
    final boolean initiator;
    volatile boolean exchanging;
    /** The latest exchange with the peer started here; only on the maintenance context. */
    Future<ExchangeResult> latest = Future.succeededFuture();
    private long lastStartedAt;
    private long lastCompletedAt;
    private long lastDurationMs;
    private ExchangeResult last;
    private long keysRepaired;
    private long completed;
    private long failed;
    private String lastError;

    Progress(boolean initiator) {
      this.initiator = initiator;
    }

    synchronized void started(long at) {
      exchanging = true;
      lastStartedAt = at;
    }

    synchronized void completed(long at, long tookMs, ExchangeResult result) {
      exchanging = false;
      lastCompletedAt = at;
      lastDurationMs = tookMs;
      last = result;
      keysRepaired += result.repaired();
      completed++;
    }

    synchronized void failed(long tookMs, String reason) {
      exchanging = false;
      lastDurationMs = tookMs;
      lastError = reason;
      failed++;
    }

    synchronized PeerStatus snapshot(long confirmedAt) {
      return new PeerStatus(initiator, exchanging, lastStartedAt, lastCompletedAt, lastDurationMs, last, keysRepaired,
          completed, failed, lastError, confirmedAt);
    }
  }
}
