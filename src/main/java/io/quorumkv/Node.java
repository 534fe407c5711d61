package io.quorumkv;

import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.http.ApiRouter;
import io.quorumkv.http.HttpVerticle;
import io.quorumkv.admin.AdminApi;
import io.quorumkv.admin.JfrRecordings;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.Rendezvous;
import io.quorumkv.http.ApiContext;
import io.quorumkv.replication.HintedHandoff;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.replication.ReplicaDirectory;
import io.quorumkv.storage.GroupedStorage;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.RocksStore;
import io.quorumkv.storage.StorageService;
import io.quorumkv.storage.StorageVerticle;
import io.quorumkv.storage.Store;
import io.quorumkv.storage.WorkerContextExecutor;
import io.quorumkv.versioning.ClockLease;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One quorumkv node: its Vert.x instance, RocksDB store, storage worker verticles and HTTP
 * verticles, started in that order and stopped in reverse.
 */
public final class Node {
  private static final System.Logger LOG = System.getLogger(Node.class.getName());
  private static final long JOIN_REPLAY_RETRY_MS = 500;
  private static final int JOIN_REPLAY_ATTEMPTS = 60;

  private final NodeConfig config;
  private final Vertx vertx;
  private final Store store;
  private final HybridLogicalClock clock;
  private final StorageService storage;
  private final PurgeSweep sweep;
  private final ReadRepair readRepair = new ReadRepair();
  private final NodeMetrics metrics;
  private final JfrRecordings recordings;
  private final List<HttpVerticle> httpVerticles = new CopyOnWriteArrayList<>();

  // Set while deploying.
  private LiveNodes liveNodes;
  private HintedHandoff hints;
  private String storageDeployment;
  private String httpDeployment;
  private long leaseTimer = -1;
  private long sweepTimer = -1;
  private long hintTimer = -1;
  private long metricsTimer = -1;

  private Node(NodeConfig config, Vertx vertx, Store store, HybridLogicalClock clock, List<Context> workers,
               InstantSource wallClock, NodeMetrics metrics) {
    this.config = config;
    this.metrics = metrics;
    this.recordings = new JfrRecordings(config.dataDir().resolve("recordings"));
    this.vertx = vertx;
    this.store = store;
    this.clock = clock;
    WorkerContextExecutor executor = new WorkerContextExecutor(vertx, workers);
    this.storage = new StorageService(store, executor,
        new GroupedStorage(vertx, store, executor, config.storage().workers()), wallClock, metrics);
    this.sweep = new PurgeSweep(storage, config.storage().purgeGraceMs());
  }

  public static Future<Node> start(NodeConfig config) {
    return start(config, InstantSource.system());
  }

  public static Future<Node> start(NodeConfig config, InstantSource wallClock) {
    return start(config, wallClock, UnaryOperator.identity());
  }

  /**
   * Starts a node; fails with a {@link StartupException} (or {@link ConfigException}) saying what is wrong.
   *
   * @param storeLayer wraps the RocksDB store, for layers such as test faults
   */
  public static Future<Node> start(NodeConfig config, InstantSource wallClock, UnaryOperator<Store> storeLayer) {
    NodeMetrics metrics = new NodeMetrics();
    VertxOptions options = metrics.instrument(new VertxOptions()
        .setPreferNativeTransport(true)
        .setEventLoopPoolSize(config.eventLoops())
        .setWorkerPoolSize(Math.max(VertxOptions.DEFAULT_WORKER_POOL_SIZE, config.storage().workers())));
    Promise<Node> started = Promise.promise();
    if (config.clusterSize() == 1) {
      Vertx vertx = Vertx.builder().with(options).withMetrics(metrics.vertxMetricsFactory()).build();
      startOn(vertx, config, LiveNodes.onlySelf(config.url()), wallClock, storeLayer, metrics, started);
      return started.future();
    }
    options.getEventBusOptions().setHost(config.url().host()).setPort(0);
    HazelcastClusterManager clusterManager = HazelcastMembership.clusterManager(config.url(), config.hazelcast());
    Vertx.builder().with(options).withMetrics(metrics.vertxMetricsFactory()).withClusterManager(clusterManager)
        .buildClustered().onComplete(joined -> {
      if (joined.failed()) {
        started.fail(new StartupException("cannot join the cluster: " + joined.cause().getMessage(), joined.cause()));
        return;
      }
      HazelcastMembership membership = new HazelcastMembership(config.url());
      membership.follow(clusterManager.getHazelcastInstance());
      startOn(joined.result(), config, membership, wallClock, storeLayer, metrics, started);
    });
    return started.future();
  }

  private static void startOn(Vertx vertx, NodeConfig config, LiveNodes liveNodes, InstantSource wallClock,
                              UnaryOperator<Store> storeLayer, NodeMetrics metrics, Promise<Node> started) {
    List<Context> workers = StorageVerticle.newContextRegistry();
    Future<Node> deployed = vertx.executeBlocking(() -> openStoreAndClock(config, wallClock, storeLayer))
        .compose(opened -> {
          Node node = new Node(config, vertx, opened.store(), opened.clock(), workers, wallClock, metrics);
          return node.deploy(workers, liveNodes, wallClock)
              .recover(failure -> node.release().transform(ignored -> Future.failedFuture(failure)));
        });
    deployed.onComplete(outcome -> {
      if (outcome.succeeded()) {
        started.complete(outcome.result());
      } else {
        vertx.close().onComplete(closed -> started.fail(startupFailure(config, outcome.cause())));
      }
    });
  }

  private record OpenedStore(Store store, HybridLogicalClock clock) {
  }

  /** Opens RocksDB and starts the clock above its persisted bound. Blocking. */
  private static OpenedStore openStoreAndClock(NodeConfig config, InstantSource wallClock, UnaryOperator<Store> storeLayer) {
    Store store = storeLayer.apply(openStore(config));
    try {
      long floor = store.readClockBound();
      waitOutLease(floor, wallClock);
      HybridLogicalClock clock = new HybridLogicalClock(wallClock, floor);
      store.writeClockBound(ClockLease.boundFor(clock));
      return new OpenedStore(store, clock);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * After a crash the persisted bound is the lease, up to {@link ClockLease#LEASE_MS} ahead of
   * the wall clock. A clock started there would issue versions ahead of every other node's, and
   * for those seconds its writes would beat later writes coordinated elsewhere; so the start
   * waits until the wall clock has passed the bound. A larger gap means the wall clock stepped
   * back: waiting would not help, and the clock simply starts above the bound.
   */
  private static void waitOutLease(long floor, InstantSource wallClock) {
    long aheadMs = HybridLogicalClock.millisOf(floor) - wallClock.millis();
    if (aheadMs <= 0 || aheadMs > ClockLease.LEASE_MS) {
      return;
    }
    LOG.log(System.Logger.Level.INFO, "waiting " + aheadMs + " ms for the wall clock to pass the persisted clock lease");
    try {
      Thread.sleep(aheadMs + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while waiting out the clock lease", e);
    }
  }

  private static Store openStore(NodeConfig config) {
    Path dir = config.dataDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ConfigException("dataDir " + dir + " cannot be created: " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : " " + e.getMessage()));
    }
    if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new ConfigException("dataDir " + dir + " is not a writable directory");
    }
    return RocksStore.open(dir, config.storage());
  }

  private Future<Node> deploy(List<Context> workers, LiveNodes liveNodes, InstantSource wallClock) {
    this.liveNodes = liveNodes;
    this.hints = new HintedHandoff(storage, clock, liveNodes, config.hints().windowMs());
    AdminApi admin = new AdminApi(vertx, recordings, config.adminToken());
    if (config.clusterSize() > 1) {
      admin.listenForClusterCommands();
    }
    ApiContext api = new ApiContext(config, storage, clock, new Rendezvous(config.cluster()), liveNodes, hints,
        readRepair, metrics, admin, wallClock);
    metrics.bind(config, storage, hints, readRepair);
    DeploymentOptions storageOptions = new DeploymentOptions()
        .setThreadingModel(ThreadingModel.WORKER)
        .setInstances(config.storage().workers());
    DeploymentOptions httpOptions = new DeploymentOptions().setInstances(config.eventLoops());
    // Port 0 is not shared between instances; a negative port is one random port shared by all.
    int port = config.url().port() == 0 ? -1 : config.url().port();
    return vertx.deployVerticle(() -> new StorageVerticle(workers), storageOptions)
        .compose(id -> {
          storageDeployment = id;
          // Hint replay, its timer and its peer connections live on this (event-loop) context.
          return hints.start(ReplicaDirectory.create(vertx, config, storage));
        })
        .compose(hintsLoaded -> vertx.deployVerticle(() -> {
          HttpVerticle verticle = new HttpVerticle(config.url().host(), port, config.shutdownTimeoutMs(), config.idleTimeoutMs(),
              v -> ApiRouter.create(v, api));
          httpVerticles.add(verticle);
          return verticle;
        }, httpOptions))
        .map(id -> {
          httpDeployment = id;
          startTimers();
          Context hintContext = vertx.getOrCreateContext();
          liveNodes.onJoined(joined -> hintContext.runOnContext(
              v -> hints.replayToJoined(vertx, joined, JOIN_REPLAY_RETRY_MS, JOIN_REPLAY_ATTEMPTS)));
          return this;
        });
  }

  private void warnAboutResurrection() {
    if (config.clusterSize() > 1 && config.storage().purgeGraceMs() < config.hints().windowMs()) {
      LOG.log(System.Logger.Level.WARNING, "storage.purgeGraceMs (" + config.storage().purgeGraceMs()
          + ") is shorter than hints.windowMs (" + config.hints().windowMs() + "): a replica that missed a delete"
          + " could bring the value back after the tombstone is purged (docs/consistency.md)");
    }
  }

  private void startTimers() {
    warnAboutResurrection();
    hintTimer = vertx.setPeriodic(config.hints().retryMs(), tick -> {
      hints.replayToLiveTargets();
      hints.dropExpiredHintsOfDownTargets();
    });
    metrics.refreshEngineStats(storage);
    metricsTimer = vertx.setPeriodic(NodeMetrics.ENGINE_REFRESH_MS, tick -> metrics.refreshEngineStats(storage));
    leaseTimer = vertx.setPeriodic(ClockLease.RENEW_EVERY_MS, tick -> renewClockLease());
    sweepTimer = vertx.setPeriodic(config.storage().sweepIntervalMs(), tick -> sweep.runOnce()
        .onSuccess(purged -> {
          if (purged > 0) {
            LOG.log(System.Logger.Level.INFO, "purge sweep dropped " + purged + " tombstones and expired records");
          }
        })
        .onFailure(e -> LOG.log(System.Logger.Level.WARNING, "purge sweep failed: " + e.getMessage())));
  }

  private Future<Void> renewClockLease() {
    return storage.writeClockBound(ClockLease.boundFor(clock))
        .onFailure(e -> LOG.log(System.Logger.Level.WARNING, "clock lease not renewed: " + e.getMessage()));
  }

  /**
   * Stops gracefully: no new connections, in-flight requests finish (up to the shutdown
   * timeout), then storage workers stop and RocksDB is flushed and closed.
   */
  public Future<Void> stop() {
    // Bound to no context: a Future bound to one of this Vert.x's event loops could not
    // complete once vertx.close() has stopped them.
    Promise<Void> stopped = Promise.promise();
    release().onComplete(outcome -> vertx.close().onComplete(closed -> stopped.handle(outcome)));
    return stopped.future();
  }

  private Future<Void> release() {
    vertx.cancelTimer(leaseTimer);
    vertx.cancelTimer(sweepTimer);
    vertx.cancelTimer(hintTimer);
    vertx.cancelTimer(metricsTimer);
    Future<Void> http = httpDeployment == null ? Future.succeededFuture() : vertx.undeploy(httpDeployment);
    return http
        .eventually(this::drainHints)
        .eventually(() -> storageDeployment == null ? Future.succeededFuture() : vertx.undeploy(storageDeployment))
        .eventually(() -> vertx.executeBlocking(() -> {
          recordings.closeAll();
          // Nothing issues versions any more: the exact clock is the floor for the next start,
          // which so starts level with the wall clock instead of a lease ahead of it.
          store.writeClockBound(clock.current());
          store.close();
          return null;
        }));
  }

  /** Before stopping, tries for a bounded time to deliver pending hints to live replicas. */
  private Future<Void> drainHints() {
    if (hints == null || config.hints().drainOnStopMs() == 0 || hints.pendingByTarget().values().stream().allMatch(n -> n == 0)) {
      return Future.succeededFuture();
    }
    return hints.replayToLiveTargets()
        .timeout(config.hints().drainOnStopMs(), TimeUnit.MILLISECONDS)
        .recover(e -> {
          LOG.log(System.Logger.Level.WARNING, "stopping with hints not delivered: " + hints.pendingByTarget());
          return Future.succeededFuture();
        });
  }

  public HintedHandoff hints() {
    return hints;
  }

  public NodeMetrics metrics() {
    return metrics;
  }

  public ReadRepair readRepair() {
    return readRepair;
  }

  /** The port the HTTP API listens on (the chosen one when the conf says port 0). */
  public int port() {
    return httpVerticles.get(0).actualPort();
  }

  /** The network transport in use: Netty's native epoll where the platform has it, else Java NIO. */
  public String transport() {
    return vertx.isNativeTransportEnabled() ? "epoll" : "nio (" + vertx.unavailableNativeTransportCause() + ")";
  }

  public NodeConfig config() {
    return config;
  }

  /** Which nodes this node's membership sees alive. */
  public LiveNodes liveNodes() {
    return liveNodes;
  }

  public StorageService storage() {
    return storage;
  }

  public PurgeSweep purgeSweep() {
    return sweep;
  }

  /** This node's own store, for tests and tools that inspect a replica's local state. Blocking. */
  public Store store() {
    return store;
  }

  private static Throwable startupFailure(NodeConfig config, Throwable failure) {
    if (failure instanceof ConfigException || failure instanceof StartupException) {
      return failure;
    }
    // Java NIO reports a BindException, Netty's native epoll transport an IOException naming the errno.
    if (failure instanceof BindException || failure instanceof IOException && String.valueOf(failure.getMessage())
        .contains("Address already in use")) {
      return new StartupException("cannot listen on " + config.url().host() + ":" + config.url().port()
          + ": address already in use", failure);
    }
    String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    return new StartupException("cannot start: " + message, failure);
  }
}
