package io.quorumkv.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.quorumkv.admission.Admission;
import io.quorumkv.admission.ByteBudget;
import io.quorumkv.antientropy.AntiEntropy;
import io.quorumkv.antientropy.PeerStatus;
import io.quorumkv.cluster.MembershipObserver;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.hints.HintedHandoff;
import io.quorumkv.http.RequestMetrics;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.replication.ReplicaFailure;
import io.quorumkv.replication.ReplicationObserver;
import io.quorumkv.storage.DiskAlarm;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.StorageObserver;
import io.quorumkv.storage.StorageService;
import io.quorumkv.topology.BoardObserver;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.Router;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.PrometheusScrapingHandler;

import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

/**
 * One node's metrics, in a Prometheus registry of its own: the HTTP server's requests by route,
 * method and status ({@link HttpRequestMetrics}), Vert.x's HTTP client and pool metrics (through
 * vertx-micrometer-metrics), JVM memory by pool, plus quorumkv's own: storage operation latency,
 * replica call outcomes, 504s, read repairs, hints, and RocksDB figures. RocksDB figures are read
 * on a storage worker every few seconds and served from that snapshot, so a scrape never calls
 * RocksDB from an event loop.
 */
public final class NodeMetrics implements StorageObserver, ReplicationObserver, BoardObserver, MembershipObserver,
    RouteMount {
  public static final long ENGINE_REFRESH_MS = 5_000;
  public static final String PATH = "/metrics";

  /** Latency range the HTTP server histogram resolves: loopback requests take well under a millisecond. */
  private static final Duration FASTEST_REQUEST = Duration.ofNanos(100_000);
  private static final Duration SLOWEST_REQUEST = Duration.ofSeconds(30);

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Long> engineSnapshot = new ConcurrentHashMap<>();
  private final Map<String, Timer> storageTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> replicaOutcomes = new ConcurrentHashMap<>();
  private final Map<NodeUrl, OpenStreams> batchStreams = new ConcurrentHashMap<>();
  private final Map<String, Counter> boardRejections = new ConcurrentHashMap<>();
  private final Map<String, Counter> membershipDefences = new ConcurrentHashMap<>();
  private final Counter notEnoughReplicas;
  private final Map<ApiTokens.Refusal, Counter> authRefusals = new EnumMap<>(ApiTokens.Refusal.class);
  private final Counter writesSuperseded;
  private final Counter digestsReceived;
  private final Counter valuesReadAfterDigest;
  private final Timer loopWriteTime;
  private final Counter loopWritesApplied;
  private final Counter loopWritesHandedOff;
  private final HttpRequestMetrics requests;
  /** Brings the per-peer series in step with the current peers; nothing until {@link #bind}. */
  private volatile Runnable followPeers = () -> { };

  public NodeMetrics() {
    // Vert.x labels its HTTP client metrics with the request's method whatever it is: each new one
    // would add series for good, and every scrape (on an event loop) would grow with them.
    registry.config().meterFilter(MeterFilter.replaceTagValues(Label.HTTP_METHOD.toString(),
        method -> HttpRequestMetrics.STANDARD_METHODS.contains(method) ? method : HttpRequestMetrics.OTHER_METHOD));
    // Histogram buckets for request latency, so that percentiles over any window (the dashboard's
    // p50 and p99 of the last minutes) follow from two scrapes.
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER || !id.getName().equals(HttpRequestMetrics.RESPONSE_TIME)) {
          return config;
        }
        return DistributionStatisticConfig.builder().percentilesHistogram(true)
            .minimumExpectedValue((double) FASTEST_REQUEST.toNanos())
            .maximumExpectedValue((double) SLOWEST_REQUEST.toNanos())
            .build().merge(config);
      }
    });
    // Heap and non-heap use by memory pool (jvm_memory_used_bytes and friends): gauges only, no listeners to close.
    new JvmMemoryMetrics().bindTo(registry);
    notEnoughReplicas = Counter.builder("quorumkv_not_enough_replicas")
        .description("requests answered 504 because fewer than ack replicas answered").register(registry);
    requests = new HttpRequestMetrics(registry);
    for (ApiTokens.Refusal reason : ApiTokens.Refusal.values()) {
      authRefusals.put(reason, Counter.builder("quorumkv_auth_refused").tag("reason", reason.label())
          .description("requests refused for their token: none (401), unknown (401), too weak a role (403)")
          .register(registry));
    }
    writesSuperseded = Counter.builder("quorumkv_writes_superseded")
        .description("write attempts refused by replicas holding a newer record, written again above it")
        .register(registry);
    digestsReceived = Counter.builder("quorumkv_read_digests")
        .description("replica answers to this node's reads that left a large value out (a digest)").register(registry);
    valuesReadAfterDigest = Counter.builder("quorumkv_read_values_after_digest")
        .description("reads whose freshest answer was a digest, their value then read whole from its replica")
        .register(registry);
    loopWriteTime = Timer.builder("quorumkv_storage_loop_write_seconds")
        .description("time an event loop spent trying to apply a group of writes itself, without a worker")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000))
        .serviceLevelObjectives(Duration.ofNanos(25_000), Duration.ofNanos(50_000), Duration.ofNanos(100_000),
            Duration.ofNanos(200_000))
        .maximumExpectedValue(Duration.ofSeconds(1)).register(registry);
    loopWritesApplied = loopWrites("applied");
    loopWritesHandedOff = loopWrites("handed_off");
  }

  private Counter loopWrites(String outcome) {
    return Counter.builder("quorumkv_storage_loop_writes").tag("outcome", outcome)
        .description("single-key writes an event loop applied itself, or tried and handed to a worker")
        .register(registry);
  }

  /**
   * Vert.x options that report HTTP client, pool and event bus metrics into this registry. The HTTP
   * server's requests are recorded by {@link #requests()} instead, in the same series.
   */
  public VertxOptions instrument(VertxOptions options) {
    return options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
        .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
        .setLabels(EnumSet.of(Label.HTTP_ROUTE, Label.HTTP_METHOD, Label.HTTP_CODE, Label.POOL_TYPE, Label.POOL_NAME)));
  }

  /** Records the HTTP server's requests: {@code vertx_http_server_requests_total} and {@code _response_time_seconds}. */
  public RequestMetrics requests() {
    return requests;
  }

  public MicrometerMetricsFactory vertxMetricsFactory() {
    return new MicrometerMetricsFactory(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public <T> Future<T> timeStorage(String operation, Future<T> pending) {
    Timer.Sample sample = Timer.start(registry);
    return pending.andThen(done -> sample.stop(storageTimer(operation)));
  }

  @Override
  public void loopWrite(int writes, long nanos, boolean applied) {
    loopWriteTime.record(nanos, TimeUnit.NANOSECONDS);
    (applied ? loopWritesApplied : loopWritesHandedOff).increment(writes);
  }

  private Timer storageTimer(String operation) {
    return storageTimers.computeIfAbsent(operation,
        op -> Timer.builder("quorumkv_storage_seconds").tag("op", op).publishPercentileHistogram()
            .description("storage operation latency on the workers, queueing included").register(registry));
  }

  /** {@code GET /metrics}: the registry in Prometheus text format. */
  @Override
  public void mount(Router router) {
    router.get(PATH).handler(context -> {
      followPeers.run();
      context.next();
    });
    router.get(PATH).handler(PrometheusScrapingHandler.create(registry));
    router.route(PATH).handler(ApiErrors.methodNotAllowed("GET"));
  }

  @Override
  public void replicaCallSucceeded() {
    countReplicaCall("ok");
  }

  @Override
  public void replicaCallFailed(ReplicaFailure.Kind kind) {
    countReplicaCall(kind.name().toLowerCase(Locale.ROOT));
  }

  private void countReplicaCall(String outcome) {
    replicaOutcomes.computeIfAbsent(outcome, o -> Counter.builder("quorumkv_replica_calls").tag("outcome", o)
        .description("coordinator-to-replica calls by outcome").register(registry)).increment();
  }

  @Override
  public void batchStreamOpened(NodeUrl peer) {
    batchStreamsTo(peer).incrementAndGet();
  }

  @Override
  public void batchStreamClosed(NodeUrl peer) {
    batchStreamsTo(peer).decrementAndGet();
  }

  private AtomicInteger batchStreamsTo(NodeUrl peer) {
    return batchStreams.computeIfAbsent(peer, p -> {
      AtomicInteger open = new AtomicInteger();
      Meter gauge = Gauge.builder("quorumkv_batch_streams", open, AtomicInteger::get).tag("peer", p.toString())
          .description("open batch streams (replica connections) to a peer").register(registry);
      return new OpenStreams(open, gauge);
    }).count();
  }

  @Override
  public void writeSuperseded() {
    writesSuperseded.increment();
  }

  @Override
  public void digestReceived() {
    digestsReceived.increment();
  }

  @Override
  public void valueReadAfterDigest() {
    valuesReadAfterDigest.increment();
  }

  @Override
  public void boardValueRejected(String map, String reason) {
    boardRejections.computeIfAbsent(map + ' ' + reason, series -> Counter.builder("quorumkv_board_rejected")
        .tag("map", map).tag("reason", reason)
        .description("values on the Hazelcast board this node ignored: mac (does not verify with the cluster secret), "
            + "writer (a node that may not write it), form (not what the entry holds)")
        .register(registry)).increment();
  }

  @Override
  public void membershipDefended(String event) {
    membershipDefences.computeIfAbsent(event, series -> Counter.builder("quorumkv_membership_defended")
        .tag("event", event)
        .description("what this node undid or refused of a Hazelcast member that is not a node: proof (a claim to be a"
            + " node that does not verify), state (a cluster state set back to ACTIVE), rebuilt (its own member, shut"
            + " down by another, built again)")
        .register(registry)).increment();
  }

  @Override
  public void notEnoughReplicas() {
    notEnoughReplicas.increment();
  }

  /** A request refused for its token ({@link ApiTokens}). */
  public void authRefused(ApiTokens.Refusal reason) {
    authRefusals.get(reason).increment();
  }

  /** Requests refused per reason, client requests in flight, and the bytes each budget holds. */
  private void bindAdmission(Admission admission) {
    for (Admission.Reason reason : Admission.Reason.values()) {
      FunctionCounter.builder("quorumkv_requests_shed", admission, a -> a.shedCount(reason))
          .tag("reason", reason.label())
          .description("client requests refused with 503 before their work began, by the bound they met")
          .register(registry);
    }
    Gauge.builder("quorumkv_client_requests_in_flight", admission, Admission::requestsInFlight)
        .description("client data requests admitted and not yet answered, on all event loops").register(registry);
    Gauge.builder("quorumkv_admission_bytes", admission.clientBodies(), ByteBudget::used).tag("budget", "client")
        .description("bytes of request bodies held in memory").register(registry);
    Gauge.builder("quorumkv_admission_bytes", admission.peerBatches(), ByteBudget::used).tag("budget", "peer")
        .register(registry);
    Gauge.builder("quorumkv_admission_limit_bytes", admission.clientBodies(), ByteBudget::limit).tag("budget", "client")
        .register(registry);
    Gauge.builder("quorumkv_admission_limit_bytes", admission.peerBatches(), ByteBudget::limit).tag("budget", "peer")
        .register(registry);
  }

  /** 1 while the node's disk is full, else 0. */
  private void bindDiskAlarm(DiskAlarm alarm) {
    Gauge.builder("quorumkv_alarm", alarm, a -> a.raised() ? 1 : 0).tag("kind", "disk_full")
        .description("1 while the alarm is raised: disk_full, the node's disk has no room for writes").register(registry);
  }

  /** Registers the convergence and RocksDB series of a started node. */
  public void bind(NodeConfig config, StorageService storage, HintedHandoff hints, ReadRepair readRepair,
                   HybridLogicalClock clock, AntiEntropy antiEntropy, PurgeSweep sweep, Admission admission,
                   DiskAlarm diskAlarm) {
    bindAdmission(admission);
    bindDiskAlarm(diskAlarm);
    MeterRegistry r = registry;
    FunctionCounter.builder("quorumkv_clock_versions_refused", clock, HybridLogicalClock::refusedAhead)
        .description("versions refused for being more than maxClockOffsetMs ahead of this node's clock").register(r);
    FunctionCounter.builder("quorumkv_read_repairs", readRepair, ReadRepair::written)
        .description("read repairs a stale replica accepted").register(r);
    FunctionCounter.builder("quorumkv_read_repairs_failed", readRepair, ReadRepair::failed).register(r);
    FunctionCounter.builder("quorumkv_hints_stored", hints, HintedHandoff::stored).register(r);
    FunctionCounter.builder("quorumkv_hints_delivered", hints, HintedHandoff::delivered).register(r);
    FunctionCounter.builder("quorumkv_hints_dropped", hints, HintedHandoff::dropped)
        .description("hints dropped past the hint window").register(r);
    PeerSeries hintTargets = new PeerSeries(r, target -> List.of(
        Gauge.builder("quorumkv_hints_pending", hints, h -> h.pendingByTarget().getOrDefault(target, 0L))
            .tag("target", target.toString()).description("hints waiting for a replica").register(r)));
    FunctionCounter.builder("quorumkv_purge_passes", sweep, PurgeSweep::passes)
        .description("purge sweeps over the whole store completed").register(r);
    FunctionCounter.builder("quorumkv_purged_records", sweep, PurgeSweep::purgedTotal)
        .description("tombstones and expired records the purge sweep dropped").register(r);
    PeerSeries exchangePeers = new PeerSeries(r, peer -> exchangeSeries(antiEntropy, peer));
    followPeers = () -> {
      Set<NodeUrl> peers = antiEntropy.status().keySet();
      exchangePeers.follow(peers);
      dropBatchStreamsOfDeparted(peers);
      Set<NodeUrl> targets = new HashSet<>(peers);
      targets.addAll(hints.pendingByTarget().keySet());
      hintTargets.follow(targets);
    };
    followPeers.run();
    FunctionCounter.builder("quorumkv_range_records_scanned", storage, StorageService::rangeRecordsScanned).register(r);
    // Present from the start: most gets may never reach a worker.
    storageTimer("get");
    storageTimer("apply");
    FunctionCounter.builder("quorumkv_storage_memory_reads", storage, StorageService::readsFromMemory)
        .description("single-key gets answered from the memtables, row cache and block cache on the event loop, "
            + "without a storage worker (not in quorumkv_storage_seconds)").register(r);
    FunctionCounter.builder("quorumkv_storage_memory_misses", storage, StorageService::missesInMemory)
        .description("single-key gets that tried memory on the event loop, found the record only on disk and "
            + "went to a storage worker").register(r);
    Gauge.builder("quorumkv_storage_queued", storage, StorageService::queuedRequests)
        .description("single-key gets and applies waiting for a storage worker to take their group").register(r);
    for (String stat : new String[] {"rocksdb.cur-size-all-mem-tables", "rocksdb.estimate-num-keys",
        "rocksdb.estimate-pending-compaction-bytes", "rocksdb.num-running-compactions", "rocksdb.num-running-flushes",
        "rocksdb.total-sst-files-size", "rocksdb.estimate-table-readers-mem", "block-cache-usage-bytes",
        "block-cache-capacity-bytes", "row-cache-usage-bytes"}) {
      Gauge.builder("quorumkv_rocksdb_" + stat.replace("rocksdb.", "").replace('-', '_'), engineSnapshot,
          s -> s.getOrDefault(stat, 0L)).register(r);
    }
    for (String ticker : new String[] {"block-cache-hits", "block-cache-misses", "row-cache-hits", "row-cache-misses",
        "bytes-written",
        "compaction-bytes-read", "compaction-bytes-written", "stall-micros"}) {
      FunctionCounter.builder("quorumkv_rocksdb_" + ticker.replace('-', '_'), engineSnapshot,
          s -> s.getOrDefault(ticker, 0L)).register(r);
    }
    FunctionCounter.builder("quorumkv_storage_keys_read_before_writing", engineSnapshot,
            s -> s.getOrDefault("keys-read-before-writing", 0L))
        .description("keys whose stored record was read before writing them").register(r);
    FunctionCounter.builder("quorumkv_storage_new_keys_written", engineSnapshot,
            s -> s.getOrDefault("new-keys-written", 0L))
        .description("keys written without a read: the filter of stored keys had never seen them").register(r);
    Gauge.builder("quorumkv_storage_new_key_filter_learned", engineSnapshot,
            s -> s.getOrDefault("new-key-filter-learned", 0L))
        .description("1 once the filter of stored keys knows every key stored before the node started").register(r);
  }

  /** A peer's open batch streams and their gauge. */
  private record OpenStreams(AtomicInteger count, Meter gauge) {
  }

  /** Drops the batch-stream gauge of every peer that is gone from the topology and has no stream left. */
  private void dropBatchStreamsOfDeparted(Set<NodeUrl> peers) {
    batchStreams.entrySet().removeIf(entry -> {
      if (peers.contains(entry.getKey()) || entry.getValue().count().get() != 0) {
        return false;
      }
      registry.remove(entry.getValue().gauge());
      return true;
    });
  }

  /** The anti-entropy series of one peer; a peer gone between two scrapes reads as NaN until the next drops them. */
  private List<Meter> exchangeSeries(AntiEntropy antiEntropy, NodeUrl peer) {
    String tag = peer.toString();
    ToDoubleFunction<AntiEntropy> completed = ae -> ofPeer(ae, peer, PeerStatus::completed);
    ToDoubleFunction<AntiEntropy> failed = ae -> ofPeer(ae, peer, PeerStatus::failed);
    return List.of(
        FunctionCounter.builder("quorumkv_antientropy_exchanges", antiEntropy, completed).tag("peer", tag)
            .tag("outcome", "completed").description("anti-entropy exchanges this node started, by outcome")
            .register(registry),
        FunctionCounter.builder("quorumkv_antientropy_exchanges", antiEntropy, failed).tag("peer", tag)
            .tag("outcome", "failed").description("anti-entropy exchanges this node started, by outcome")
            .register(registry),
        FunctionCounter.builder("quorumkv_antientropy_keys_repaired", antiEntropy,
                ae -> ofPeer(ae, peer, PeerStatus::keysRepaired))
            .tag("peer", tag).description("records copied either way by anti-entropy exchanges this node started")
            .register(registry),
        Gauge.builder("quorumkv_antientropy_last_completed_seconds", antiEntropy,
                ae -> ofPeer(ae, peer, PeerStatus::lastCompletedAt) / 1000.0)
            .tag("peer", tag).description("when the latest exchange this node started completed (Unix time, 0 for never)")
            .register(registry),
        Gauge.builder("quorumkv_antientropy_confirmed_seconds", antiEntropy,
                ae -> ofPeer(ae, peer, PeerStatus::confirmedAt) / 1000.0)
            .tag("peer", tag).description("start of the latest fully repaired exchange with the peer (Unix time, 0 for never)")
            .register(registry));
  }

  private static double ofPeer(AntiEntropy antiEntropy, NodeUrl peer, ToDoubleFunction<PeerStatus> figure) {
    PeerStatus status = antiEntropy.status().get(peer);
    return status == null ? Double.NaN : figure.applyAsDouble(status);
  }

  /** Keeps a fresh RocksDB snapshot (taken on a storage worker) for the gauges. */
  public void updateEngineStats(Map<String, Long> stats) {
    engineSnapshot.putAll(stats);
  }
}
