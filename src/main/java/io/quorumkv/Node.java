package io.quorumkv;

import com.hazelcast.core.HazelcastInstance;
import io.quorumkv.admin.AdminApi;
import io.quorumkv.admin.JfrRecordings;
import io.quorumkv.admin.MembershipAdmin;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.admission.Admission;
import io.quorumkv.admission.OutOfMemoryExit;
import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.Confirmations;
import io.quorumkv.antientropy.PeerTrees;
import io.quorumkv.antientropy.TreeHandler;
import io.quorumkv.antientropy.TreeService;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.cluster.JoinRetry;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.hints.HintStore;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.hints.RocksHintStore;
import io.quorumkv.http.ApiContext;
import io.quorumkv.http.ApiRouter;
import io.quorumkv.http.HttpVerticle;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.range.InternalRangeHandler;
import io.quorumkv.replication.InFlightWrites;
import io.quorumkv.replication.InternalHandler;
import io.quorumkv.replication.KeyLocks;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.storage.GroupedStorage;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.RecordIndex;
import io.quorumkv.storage.RocksDatabase;
import io.quorumkv.storage.RocksMetaStore;
import io.quorumkv.storage.RocksStore;
import io.quorumkv.storage.StorageService;
import io.quorumkv.storage.StorageVerticle;
import io.quorumkv.storage.Store;
import io.quorumkv.storage.WorkerContextExecutor;
import io.quorumkv.topology.ChangeDriver;
import io.quorumkv.topology.Cleanup;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.HazelcastBoard;
import io.quorumkv.topology.Topology;
import io.quorumkv.topology.TopologyBoard;
import io.quorumkv.topology.TopologyException;
import io.quorumkv.topology.TransferHandler;
import io.quorumkv.topology.TransferReceiver;
import io.quorumkv.ui.Dashboard;
import io.quorumkv.versioning.ClockLease;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.RouteMount;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * One quorumkv node: its Vert.x instance, RocksDB, storage worker verticles, the maintenance
 * verticle and the HTTP verticles, started in that order and stopped in reverse.
 */
public final class Node {
  private static final System.Logger LOG = System.getLogger(Node.class.getName());
  private static final long STOP_MARGIN_MS = 5_000;
  private static final long SETTLE_MARGIN_MS = 1_000;
  private static final long SLOW_TREE_BUILD_MS = 1_000;
  private static final long TOPOLOGY_TICK_MS = 1_000;

  private final NodeConfig config;
  private final Vertx vertx;
  private final OpenedStorage opened;
  private final HybridLogicalClock clock;
  private final WorkerContextExecutor executor;
  private final StorageService storage;
  private final PurgeSweep sweep;
  private final Confirmations confirmations;
  private final TreeService trees;
  private final ReadRepair readRepair = new ReadRepair();
  private final InFlightWrites inFlightWrites = new InFlightWrites();
  private final NodeMetrics metrics;
  private final JfrRecordings recordings;
  private final List<HttpVerticle> httpVerticles = new CopyOnWriteArrayList<>();

  // Set while deploying.
  private LiveNodes liveNodes;
  private ClusterTopology topology;
  private TransferReceiver transfers;
  private HintedHandoff hints;
  private AntiEntropy antiEntropy;
  private String storageDeployment;
  private String maintenanceDeployment;
  private String httpDeployment;
  /** The clock lease renewal under way or last done; guarded by this. */
  private Future<?> leaseRenewal;

  private Node(NodeConfig config, Vertx vertx, OpenedStorage opened, HybridLogicalClock clock, List<Context> workers,
               InstantSource wallClock, NodeMetrics metrics) {
    this.config = config;
    this.metrics = metrics;
    this.recordings = new JfrRecordings(config.dataDir().resolve("recordings"));
    this.vertx = vertx;
    this.opened = opened;
    this.clock = clock;
    this.executor = new WorkerContextExecutor(vertx, workers);
    this.storage = new StorageService(opened.store(), executor,
        new GroupedStorage(vertx, opened.store(), executor, config.storage().workers()), wallClock, metrics);
    // The purge gate counts only confirmations of the topology in force (null only while the node starts).
    this.confirmations = new Confirmations(opened.trees(),
        () -> topology == null ? PeerTrees.UNSHAPED : topology.current().epoch());
    this.sweep = new PurgeSweep(storage, config.storage().purgeGraceMs(), confirmations);
    this.trees = new TreeService(opened.trees(), opened.index(), storage, confirmations, opened.records().writeClock());
    clock.renewLeaseWith(this::renewLease);
  }

  public static Future<Node> start(NodeConfig config) {
    return start(config, InstantSource.system());
  }

  public static Future<Node> start(NodeConfig config, InstantSource wallClock) {
    return start(config, wallClock, UnaryOperator.identity());
  }

  /**
   * Starts a node; fails with a {@link StartupException} (or {@link ConfigException}) saying what is wrong.
   * A join that Hazelcast refuses for its cluster state (a merge in progress) is tried again ({@link JoinRetry}).
   *
   * @param storeLayer wraps the RocksDB record store, for layers such as test faults
   */
  public static Future<Node> start(NodeConfig config, InstantSource wallClock, UnaryOperator<Store> storeLayer) {
    Promise<Node> started = Promise.promise();
    if (config.clusterSize() == 1) {
      NodeMetrics metrics = new NodeMetrics();
      Vertx vertx = Vertx.builder().with(vertxOptions(config, metrics)).withMetrics(metrics.vertxMetricsFactory()).build();
      startOn(vertx, config, LiveNodes.onlySelf(config.url()), TopologyBoard.local(), wallClock, storeLayer, metrics,
          started);
      return started.future();
    }
    JoinRetry.standard().join(() -> joinCluster(config)).onComplete(joined -> {
      if (joined.failed()) {
        started.fail(new StartupException("cannot join the cluster: " + joined.cause().getMessage(), joined.cause()));
        return;
      }
      Joined cluster = joined.result();
      HazelcastMembership membership = new HazelcastMembership(config.url());
      membership.follow(cluster.hazelcast());
      startOn(cluster.vertx(), config, membership, new HazelcastBoard(cluster.vertx(), cluster.hazelcast()), wallClock,
          storeLayer, cluster.metrics(), started);
    });
    return started.future();
  }

  private static VertxOptions vertxOptions(NodeConfig config, NodeMetrics metrics) {
    return metrics.instrument(new VertxOptions()
        .setPreferNativeTransport(true)
        .setEventLoopPoolSize(config.eventLoops())
        .setWorkerPoolSize(Math.max(VertxOptions.DEFAULT_WORKER_POOL_SIZE, config.storage().workers())));
  }

  /** A clustered Vert.x that joined, its Hazelcast member, and the registry its metrics go to. */
  private record Joined(Vertx vertx, HazelcastInstance hazelcast, NodeMetrics metrics) {
  }

  /** One attempt to join, from a fresh Vert.x, Hazelcast member and registry: a failed one closed its own. */
  private static Future<Joined> joinCluster(NodeConfig config) {
    NodeMetrics metrics = new NodeMetrics();
    VertxOptions options = vertxOptions(config, metrics);
    options.getEventBusOptions().setHost(config.url().host()).setPort(0);
    HazelcastClusterManager clusterManager = HazelcastMembership.clusterManager(config.url(), config.hazelcast());
    return Vertx.builder().with(options).withMetrics(metrics.vertxMetricsFactory()).withClusterManager(clusterManager)
        .buildClustered().map(vertx -> new Joined(vertx, clusterManager.getHazelcastInstance(), metrics));
  }

  private static void startOn(Vertx vertx, NodeConfig config, LiveNodes liveNodes, TopologyBoard board,
                              InstantSource wallClock,
                              UnaryOperator<Store> storeLayer, NodeMetrics metrics, Promise<Node> started) {
    OutOfMemoryExit.install(vertx);
    List<Context> workers = StorageVerticle.newContextRegistry();
    Future<Node> deployed = vertx.executeBlocking(() -> OpenedStorage.open(config, storeLayer, wallClock))
        .compose(opened -> startClock(vertx, opened, wallClock, config.maxClockOffsetMs())
            .compose(clock -> {
              Node node = new Node(config, vertx, opened, clock, workers, wallClock, metrics);
              return node.agreeOnTopology(liveNodes, board)
                  .compose(agreed -> node.deploy(workers, liveNodes, wallClock))
                  .recover(failure -> node.release().transform(ignored -> Future.failedFuture(failure)));
            }, failure -> vertx.executeBlocking(() -> {
              opened.close();
              return null;
            }).transform(ignored -> Future.failedFuture(failure))));
    deployed.onComplete(outcome -> {
      if (outcome.succeeded()) {
        started.complete(outcome.result());
      } else {
        vertx.close().onComplete(closed -> started.fail(startupFailure(config, outcome.cause())));
      }
    });
  }

  /**
   * RocksDB and the stores on it, opened together and closed together; the anti-entropy trees
   * are filled from the record index once the topology is agreed, before anything writes.
   */
  private record OpenedStorage(RocksDatabase database, RocksStore records, Store store, HintStore hints,
                               ClockLease lease, RocksMetaStore meta, RecordIndex index, PeerTrees trees) {
    /** Opens RocksDB in the conf's data directory. Blocking. */
    static OpenedStorage open(NodeConfig config, UnaryOperator<Store> storeLayer, InstantSource wallClock) {
      RocksDatabase database = RocksDatabase.open(dataDirOf(config), config.storage());
      try {
        RocksMetaStore meta = new RocksMetaStore(database);
        RecordIndex index = new RecordIndex(database);
        long indexed = index.buildIfMissing(meta, wallClock);
        if (indexed > 0) {
          LOG.log(System.Logger.Level.INFO, "indexed " + indexed + " records stored before the record index existed");
        }
        // Empty until the topology is agreed: reshapeTrees fills them, once, for its nodes, and
        // teaches the filter of stored keys in the same scan of the index.
        PeerTrees trees = new PeerTrees(config.url(), config.cluster());
        RocksStore records = new RocksStore(database, wallClock, config.storage().newKeyFilterKeys());
        records.onChange(trees);
        return new OpenedStorage(database, records, storeLayer.apply(records), new RocksHintStore(database),
            new ClockLease(meta.clockBound()), meta, index, trees);
      } catch (RuntimeException e) {
        database.close();
        throw e;
      }
    }

    /** Blocking. */
    void close() {
      try {
        store.close();
      } finally {
        database.close();
      }
    }
  }

  /**
   * Starts the clock above its persisted bound, once the wall clock has passed the bound if it
   * is a crash's lease ahead (a timer, not a sleep), and persists the new lease.
   */
  private static Future<HybridLogicalClock> startClock(Vertx vertx, OpenedStorage opened, InstantSource wallClock,
                                                      long maxClockOffsetMs) {
    return vertx.executeBlocking(opened.lease()::persistedBound).compose(floor -> {
      long waitMs = ClockLease.waitBeforeStartMs(floor, wallClock.millis(), maxClockOffsetMs);
      if (waitMs > 0) {
        LOG.log(System.Logger.Level.INFO, "waiting " + waitMs + " ms for the wall clock to pass the persisted clock lease");
      }
      Future<Void> waited = waitMs > 0 ? vertx.timer(waitMs, TimeUnit.MILLISECONDS) : Future.succeededFuture();
      return waited.compose(ignored -> {
        HybridLogicalClock clock = HybridLogicalClock.leased(wallClock, floor, maxClockOffsetMs);
        return vertx.executeBlocking(() -> {
          renewLease(opened.lease(), clock);
          return clock;
        });
      });
    });
  }

  /** Persists a lease ahead of the clock, then lets the clock issue versions up to it. Blocking. */
  private static void renewLease(ClockLease lease, HybridLogicalClock clock) {
    long bound = ClockLease.boundFor(clock);
    lease.persist(bound);
    clock.leaseUpTo(bound);
  }

  private static Path dataDirOf(NodeConfig config) {
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
    return dir;
  }

  /**
   * Agrees on the topology with the other nodes (joining it if this node is new) and shapes the
   * anti-entropy trees for it; fails with a {@link StartupException} saying why this node cannot
   * be part of the cluster now.
   */
  private Future<Topology> agreeOnTopology(LiveNodes liveNodes, TopologyBoard board) {
    this.liveNodes = liveNodes;
    this.topology = new ClusterTopology(vertx, config.url(), board, opened.meta(), liveNodes);
    return topology.start(config.cluster())
        .recover(e -> Future.failedFuture(e instanceof TopologyException
            ? new StartupException("cannot join the cluster: " + e.getMessage(), e) : e))
        .compose(agreed -> reshapeTrees(agreed).map(agreed))
        .onSuccess(agreed -> topology.onChange(next -> {
          if (next.isStable()) {
            reshapeTrees(next).onFailure(e -> LOG.log(System.Logger.Level.WARNING,
                "cannot reshape the anti-entropy trees: " + e.getMessage()));
          }
        }));
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
          opened.trees().reshape(shapedFor.epoch(), shapedFor.readNodes(),
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

  /** Anti-entropy compares trees only in a stable topology, once they are shaped for it. */
  private boolean antiEntropyEnabled() {
    Topology current = topology.current();
    return current.isStable() && opened.trees().epoch() == current.epoch();
  }

  private Future<Node> deploy(List<Context> workers, LiveNodes liveNodes, InstantSource wallClock) {
    this.hints = new HintedHandoff(opened.hints(), executor, clock, liveNodes, config.hints().windowMs(),
        hint -> topology.current().wants(hint.target(), hint.key(), hint.record().replicas()),
        target -> !topology.current().allNodes().contains(target));
    this.antiEntropy = new AntiEntropy(config, opened.trees(), trees, confirmations, storage, clock, liveNodes,
        wallClock, this::antiEntropyEnabled);
    this.transfers = new TransferReceiver(vertx, config, topology, storage, opened.meta(), clock, wallClock);
    AdminApi admin = new AdminApi(vertx, recordings, config.adminToken());
    admin.listenForClusterCommands(); // a single node too: its event bus is local, scope=cluster means itself
    Admission admission = Admission.forHeap(Runtime.getRuntime().maxMemory(), config.admission().clientBodyBytes(),
        config.admission().maxRequestsPerLoop(), config.admission().maxQueuedStorage(), storage::queuedRequests);
    PeerAuthorization peers = new PeerAuthorization(config.clusterSecret());
    List<RouteMount> mounts = List.of(
        new InternalHandler(storage, clock, admission, config.maxBodyBytes(), peers),
        new TransferHandler(storage, topology, peers),
        new InternalRangeHandler(storage, peers),
        new TreeHandler(trees, admission, peers),
        metrics, admin, new MembershipAdmin(topology, config.adminToken()),
        new Dashboard(config.adminToken() != null));
    ApiContext api = new ApiContext(config, storage, clock, topology, liveNodes, hints,
        readRepair, metrics, inFlightWrites, mounts, peers, wallClock, antiEntropy, new KeyLocks(vertx),
        metrics.requests(), admission, opened.database().diskAlarm());
    metrics.bind(config, storage, hints, readRepair, clock, antiEntropy, sweep);
    metrics.bindAdmission(admission);
    metrics.bindDiskAlarm(opened.database().diskAlarm());
    warnAboutResurrection();
    DeploymentOptions storageOptions = new DeploymentOptions()
        .setThreadingModel(ThreadingModel.WORKER)
        .setInstances(config.storage().workers());
    DeploymentOptions httpOptions = new DeploymentOptions().setInstances(config.eventLoops());
    // Port 0 is not shared between instances; a negative port is one random port shared by all.
    int port = config.url().port() == 0 ? -1 : config.url().port();
    return vertx.deployVerticle(() -> new StorageVerticle(workers), storageOptions)
        .compose(id -> {
          storageDeployment = id;
          return vertx.deployVerticle(new MaintenanceVerticle(config, storage, hints, antiEntropy, transfers, liveNodes,
              metrics, maintenanceTasks(wallClock)));
        })
        .compose(id -> {
          maintenanceDeployment = id;
          return vertx.deployVerticle(() -> {
            HttpVerticle verticle = new HttpVerticle(config.url().host(), port, config.shutdownTimeoutMs(),
                config.idleTimeoutMs(), v -> ApiRouter.create(v, api), this::settleInFlightWrites, metrics.requests());
            httpVerticles.add(verticle);
            return verticle;
          }, httpOptions);
        })
        .map(id -> {
          httpDeployment = id;
          return this;
        });
  }

  /**
   * After the HTTP server stopped: the replica writes of answered requests still running, and
   * the hints of those that fail, finish while the storage is up. Each has its replica timeout.
   */
  private Future<?> settleInFlightWrites() {
    return inFlightWrites.settled()
        .timeout(config.replicaTimeoutMs() + SETTLE_MARGIN_MS, TimeUnit.MILLISECONDS)
        .recover(e -> {
          LOG.log(System.Logger.Level.WARNING, "stopping with replica writes still running");
          return Future.succeededFuture();
        });
  }

  private List<MaintenanceVerticle.Task> maintenanceTasks(InstantSource wallClock) {
    List<MaintenanceVerticle.Task> tasks = new ArrayList<>();
    ChangeDriver driver = new ChangeDriver(topology, config.replicaTimeoutMs(), wallClock);
    Cleanup cleanup = new Cleanup(topology, storage, opened.meta(), config.replicaTimeoutMs(), wallClock);
    tasks.add(new MaintenanceVerticle.Task("topology", TOPOLOGY_TICK_MS,
        () -> Future.join(driver.tick(), transfers.tick(), cleanup.tick())));
    tasks.add(new MaintenanceVerticle.Task("hint retry", config.hints().retryMs(),
        () -> Future.join(hints.replayToLiveTargets(), hints.dropExpiredHintsOfDownTargets())));
    tasks.add(new MaintenanceVerticle.Task("anti-entropy", config.antiEntropy().intervalMs(),
        () -> antiEntropy.exchangeDue()));
    tasks.add(new MaintenanceVerticle.Task("clock lease renewal", ClockLease.RENEW_EVERY_MS, this::renewLease));
    tasks.add(new MaintenanceVerticle.Task("engine statistics", NodeMetrics.ENGINE_REFRESH_MS, this::refreshEngineStats));
    // A purge waits for a stable topology: the confirmations it relies on are per pair of owners.
    tasks.add(new MaintenanceVerticle.Task("purge sweep", config.storage().sweepIntervalMs(), () -> !topology.current()
        .isStable() ? Future.succeededFuture() : sweep.runOnce()
        .onSuccess(purged -> {
          if (purged > 0) {
            LOG.log(System.Logger.Level.INFO, "purge sweep dropped " + purged + " tombstones and expired records");
          }
        })));
    return tasks;
  }

  /** Renews the clock lease on a storage worker; a renewal already under way is not doubled but shared. */
  private synchronized Future<?> renewLease() {
    if (leaseRenewal == null || leaseRenewal.isComplete()) {
      leaseRenewal = executor.submit(() -> {
        renewLease(opened.lease(), clock);
        return null;
      });
    }
    return leaseRenewal;
  }

  private Future<?> refreshEngineStats() {
    return executor.submit(() -> {
      Map<String, Long> stats = new HashMap<>(opened.database().engineStats());
      stats.putAll(opened.records().writeStats());
      return stats;
    }).onSuccess(metrics::updateEngineStats);
  }

  private void warnAboutResurrection() {
    if (config.clusterSize() > 1 && config.storage().purgeGraceMs() < config.hints().windowMs()) {
      LOG.log(System.Logger.Level.WARNING, "storage.purgeGraceMs (" + config.storage().purgeGraceMs()
          + ") is shorter than hints.windowMs (" + config.hints().windowMs() + "): a replica that missed a delete"
          + " could bring the value back after the tombstone is purged (docs/consistency.md)");
    }
  }

  /**
   * Stops gracefully: no new connections, in-flight requests finish (up to the shutdown
   * timeout) and so do the replica writes they started, pending hints are delivered (up to the
   * drain time), then storage workers stop and RocksDB is flushed and closed.
   */
  public Future<Void> stop() {
    // Bound to no context: a Future bound to one of this Vert.x's event loops could not
    // complete once vertx.close() has stopped them.
    Promise<Void> stopped = Promise.promise();
    release().onComplete(outcome -> vertx.close().onComplete(closed -> stopped.handle(outcome)));
    return stopped.future();
  }

  /** The longest a graceful stop may take: every stage's own bound, and a margin. */
  public long stopTimeoutMs() {
    return config.shutdownTimeoutMs() + config.replicaTimeoutMs() + SETTLE_MARGIN_MS + config.hints().drainOnStopMs()
        + STOP_MARGIN_MS;
  }

  private Future<Void> release() {
    return undeploy(httpDeployment)
        .eventually(() -> undeploy(maintenanceDeployment))
        .eventually(() -> undeploy(storageDeployment))
        .eventually(() -> vertx.executeBlocking(() -> {
          recordings.closeAll();
          // Nothing issues versions any more: the exact clock is the floor for the next start,
          // which so starts level with the wall clock instead of a lease ahead of it.
          opened.lease().persist(clock.current());
          opened.close();
          return null;
        }));
  }

  private Future<Void> undeploy(String deployment) {
    return deployment == null ? Future.succeededFuture() : vertx.undeploy(deployment);
  }

  /** Completes with the epoch at which this node left the topology (it then has nothing to do but stop). */
  public Future<Long> departed() {
    return topology.departed();
  }

  /** This node's view of the agreed topology. */
  public ClusterTopology topology() {
    return topology;
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

  /** This node's clock, for tests. */
  public HybridLogicalClock clock() {
    return clock;
  }

  public AntiEntropy antiEntropy() {
    return antiEntropy;
  }

  public PurgeSweep purgeSweep() {
    return sweep;
  }

  /** This node's own record store, for tests and tools that inspect a replica's local state. Blocking. */
  public Store store() {
    return opened.store();
  }

  /** The clock's persisted lease, for tests. Blocking. */
  public ClockLease clockLease() {
    return opened.lease();
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
