package io.quorumkv;

import io.quorumkv.admin.ClusterHandler;
import io.quorumkv.admin.JfrRecordings;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.admin.RepairAdmin;
import io.quorumkv.admission.Admission;
import io.quorumkv.admission.OutOfMemoryExit;
import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.Confirmations;
import io.quorumkv.antientropy.PeerTrees;
import io.quorumkv.antientropy.TreeService;
import io.quorumkv.backup.NodeBackups;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.hints.RocksHintStore;
import io.quorumkv.http.ApiContext;
import io.quorumkv.http.ApiRouter;
import io.quorumkv.http.HttpVerticle;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerCertificates;
import io.quorumkv.web.CertificateReload;
import io.quorumkv.range.ClusterRange;
import io.quorumkv.replication.ConditionalWrites;
import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.EntityQuery;
import io.quorumkv.replication.InFlightWrites;
import io.quorumkv.replication.KeyLocks;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.replication.ReplicaDirectory;
import io.quorumkv.storage.GroupedStorage;
import io.quorumkv.storage.LoopWrites;
import io.quorumkv.storage.OpenedStorage;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.StorageService;
import io.quorumkv.storage.StorageVerticle;
import io.quorumkv.storage.Store;
import io.quorumkv.storage.WorkerContextExecutor;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.TopologySteps;
import io.quorumkv.versioning.ClockLease;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.versioning.LeasedClock;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * One quorumkv node: wires its parts, and starts them in order (Vert.x, RocksDB, the clock, the
 * agreed topology, the storage workers, the maintenance verticle, the HTTP verticles) and stops
 * them in reverse.
 */
public final class Node {
  private final NodeConfig config;
  private final Vertx vertx;
  private final OpenedStorage opened;
  private final LeasedClock clock;
  private final StorageService storage;
  private final PeerTrees trees;
  private final PurgeSweep sweep;
  private final Confirmations confirmations;
  private final ReadRepair readRepair = new ReadRepair();
  private final InFlightWrites inFlightWrites = new InFlightWrites();
  private final PeerCertificates peerCertificates;
  /** The Vert.x and the Hazelcast membership, closed last. */
  private final Bootstrap bootstrap;
  /** Under TLS, once the HTTP verticles are deployed. */
  private volatile CertificateReload certificateReload;
  private final NodeMetrics metrics;
  private final JfrRecordings recordings;
  private final LiveNodes liveNodes;
  private final ClusterTopology topology;
  private final TopologySteps steps;
  private final List<HttpVerticle> httpVerticles = new CopyOnWriteArrayList<>();
  private final List<String> deployments = new CopyOnWriteArrayList<>();
  private final HintedHandoff hints;
  private final TreeService treeService;
  private final AntiEntropy antiEntropy;

  private Node(NodeConfig config, Bootstrap bootstrap, OpenedStorage opened, LeasedClock clock,
               WorkerContextExecutor executor, InstantSource wallClock) {
    this.config = config;
    this.bootstrap = bootstrap;
    this.vertx = bootstrap.vertx();
    this.opened = opened;
    this.clock = clock;
    this.metrics = bootstrap.metrics();
    this.liveNodes = bootstrap.liveNodes();
    this.peerCertificates = bootstrap.peers();
    this.recordings = new JfrRecordings(config.dataDir().resolve("recordings"));
    this.storage = new StorageService(opened.store(), executor,
        new GroupedStorage(vertx, opened.store(), executor, config.storage().workers(),
            new LoopWrites(config.storage().writesOnLoop(), metrics)),
        wallClock, metrics);
    // Empty until the topology is agreed; every record change keeps them current from then on.
    this.trees = new PeerTrees(config.url(), config.cluster());
    opened.records().onChange(trees);
    this.topology = new ClusterTopology(vertx, config.url(), bootstrap.board(), opened.meta(), liveNodes,
        config.replicationFactor());
    peerCertificates.acceptNodesOf(() -> topology.current() == null ? null : topology.current().allNodes());
    this.steps = new TopologySteps(vertx, config, topology, opened, storage, trees, clock.clock(), wallClock);
    this.confirmations = new Confirmations(trees, steps::epochInForce);
    this.sweep = new PurgeSweep(storage, config.storage().purgeGraceMs(), confirmations);
    this.hints = new HintedHandoff(new RocksHintStore(opened.database()), executor, clock.clock(), liveNodes,
        config.hints().windowMs(),
        hint -> topology.current().wants(hint.target(), hint.key(), hint.record().replicas()),
        target -> !topology.current().allNodes().contains(target));
    this.treeService = new TreeService(trees, opened.index(), storage, confirmations, opened.records().writeClock());
    this.antiEntropy = new AntiEntropy(config, trees, treeService, confirmations, storage, clock.clock(), liveNodes,
        wallClock, steps::antiEntropyAllowed);
  }

  public static Future<Node> start(NodeConfig config) {
    return start(config, InstantSource.system(), UnaryOperator.identity());
  }

  /**
   * Starts a node; fails with a {@link StartupException} (or a conf's {@code ConfigException})
   * saying what is wrong.
   *
   * @param storeLayer wraps the RocksDB record store, for layers such as test faults
   */
  public static Future<Node> start(NodeConfig config, InstantSource wallClock, UnaryOperator<Store> storeLayer) {
    return Bootstrap.start(config).compose(bootstrap -> {
      Vertx vertx = bootstrap.vertx();
      OutOfMemoryExit.install(vertx);
      List<Context> workers = StorageVerticle.newContextRegistry();
      WorkerContextExecutor executor = new WorkerContextExecutor(vertx, workers);
      Promise<Node> started = Promise.promise();
      vertx.executeBlocking(() -> OpenedStorage.open(config, storeLayer, wallClock))
          .compose(opened -> LeasedClock.start(vertx, new ClockLease(opened.meta().clockBound()), wallClock,
                  config.maxClockOffsetMs(), executor::submit)
              .compose(clock -> {
                Node node = new Node(config, bootstrap, opened, clock, executor, wallClock);
                return node.steps.agree()
                    .compose(agreed -> node.deploy(workers, wallClock))
                    .recover(failure -> node.release().transform(ignored -> Future.failedFuture(failure)));
              }, failure -> vertx.executeBlocking(() -> {
                opened.close();
                return null;
              }).transform(ignored -> Future.failedFuture(failure))))
          .onSuccess(started::complete)
          .onFailure(failure -> bootstrap.close()
              .onComplete(closed -> started.fail(StartupException.from(config, failure))));
      return started.future();
    });
  }

  private Future<Node> deploy(List<Context> workers, InstantSource wallClock) {
    HybridLogicalClock versions = clock.clock();
    Admission admission = Admission.of(config.admission(), config.maxBodyBytes(), storage::queuedRequests,
        storage.largeValues());
    PeerAuthorization peers = new PeerAuthorization(config.clusterSecret(), peerCertificates);
    NodeBackups backups = new NodeBackups(config.backup(), config.url(), opened.database(),
        () -> topology.current().toJson(), versions::current, wallClock);
    ApiTokens tokens = new ApiTokens(config.auth(), metrics::authRefused);
    List<RouteMount> nodeWide = Stream.concat(Routes.besideTheApi(vertx, config, storage, versions, topology,
        treeService, admission, peers, metrics, recordings, backups, tokens).stream(), Stream.of(new ClusterHandler(
            config, topology, liveNodes, hints, readRepair, antiEntropy, opened.database().diskAlarm()),
        new RepairAdmin(config.url(), topology, antiEntropy))).toList();
    KeyLocks keyLocks = new KeyLocks(vertx);
    EntityQuery query = new EntityQuery(topology::current, wallClock);
    metrics.bind(config, storage, hints, readRepair, versions, antiEntropy, sweep, admission,
        opened.database().diskAlarm());
    // The TLS contexts first, built on a worker: every server and client to a peer shares them.
    return (config.tls() == null ? Future.<CertificateReload>succeededFuture()
        : CertificateReload.start(vertx, config.tls()))
        .onSuccess(reload -> certificateReload = reload)
        .compose(reload -> StorageVerticle.deploy(vertx, workers, config.storage().workers()))
        .onSuccess(deployments::add)
        .compose(id -> vertx.deployVerticle(new MaintenanceVerticle(config, storage, liveNodes, metrics,
            new MaintenanceVerticle.Work(hints, antiEntropy, steps, clock, sweep,
                () -> storage.submit(opened::engineStats).onSuccess(metrics::updateEngineStats)))))
        .onSuccess(deployments::add)
        .compose(id -> vertx.deployVerticle(() -> {
          // Once its server stopped, the replica writes of answered requests (and the hints of those that fail) finish.
          HttpVerticle verticle = new HttpVerticle(config, loop -> {
            LoopServices services = servicesOn(loop, admission, keyLocks, wallClock);
            List<RouteMount> mounts = Stream.concat(nodeWide.stream(), Routes.onTheLoop(loop, config, services, topology,
                query, admission, peers, wallClock).stream()).toList();
            return ApiRouter.create(loop, new ApiContext(config, services.coordinator(), services.conditionalWrites(),
                services.clusterRange(), query, storage, admission, metrics.requests(), tokens, wallClock, mounts));
          },
              () -> inFlightWrites.settledWithin(config.settleTimeoutMs()), metrics.requests(), certificateReload);
          httpVerticles.add(verticle);
          return verticle;
        }, new DeploymentOptions().setInstances(config.eventLoops())))
        .onSuccess(deployments::add)
        .map(this);
  }

  /**
   * The services of one event loop, built once on it (the HTTP verticle's start): the coordinator with its
   * replica clients, compare-and-set on this node as a key's first replica, and the cluster-wide range.
   */
  private LoopServices servicesOn(Vertx loop, Admission admission, KeyLocks keyLocks, InstantSource wallClock) {
    ReplicaDirectory replicas = new ReplicaDirectory(loop, config, storage, metrics);
    replicas.connectAhead(liveNodes);
    Coordinator coordinator = new Coordinator(clock.clock(), topology::current, liveNodes, replicas, config.url(),
        hints, readRepair, metrics, inFlightWrites, admission.clientBodies(), config.replicaTimeoutMs());
    long lockWaitMs = 2 * config.replicaTimeoutMs();
    ConditionalWrites conditionalWrites = new ConditionalWrites(coordinator, replicas.get(config.url()), keyLocks,
        wallClock, lockWaitMs);
    return new LoopServices(coordinator, conditionalWrites,
        new ClusterRange(loop, config, topology::current, liveNodes, storage));
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
    release().onComplete(outcome -> bootstrap.close().onComplete(closed -> stopped.handle(outcome)));
    return stopped.future();
  }

  /** Undeploys in reverse order of deployment (HTTP, maintenance, storage), then closes RocksDB. */
  private Future<Void> release() {
    if (certificateReload != null) {
      certificateReload.stop();
    }
    Future<Void> undeployed = Future.succeededFuture();
    for (int i = deployments.size() - 1; i >= 0; i--) {
      String deployment = deployments.get(i);
      undeployed = undeployed.eventually(() -> vertx.undeploy(deployment));
    }
    return undeployed.eventually(() -> vertx.executeBlocking(() -> {
      recordings.closeAll();
      clock.persistExact();
      opened.close();
      return null;
    }));
  }

  /** Completes with the epoch at which this node left the topology (it then has nothing to do but stop). */
  public Future<Long> departed() {
    return topology.departed();
  }

  public ClusterTopology topology() {
    return topology;
  }

  public HintedHandoff hints() {
    return hints;
  }

  public NodeConfig config() {
    return config;
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

  public LiveNodes liveNodes() {
    return liveNodes;
  }

  public StorageService storage() {
    return storage;
  }

  public HybridLogicalClock clock() {
    return clock.clock();
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
    return clock.lease();
  }
}
