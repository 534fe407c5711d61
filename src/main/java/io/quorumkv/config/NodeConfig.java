package io.quorumkv.config;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything a node is started from, loaded and validated by {@link ConfigLoader}.
 *
 * @param url               this node's own address; it listens there
 * @param cluster           the nodes of the cluster as the conf lists them, sorted, including {@code url}: the
 *                          first topology of a new cluster; afterwards the agreed topology prevails
 * @param replicationFactor the default {@code from} of requests (at most the cluster size), recorded in a new
 *                          cluster's first topology; afterwards the cluster's recorded factor prevails
 * @param dataDir           RocksDB directory of this node
 * @param hazelcast         membership settings, null for a single node
 * @param eventLoops        event-loop threads, one HTTP verticle each
 * @param maxBodyBytes      largest accepted PUT body; larger ones get 413
 * @param shutdownTimeoutMs how long a stop waits for in-flight requests
 * @param idleTimeoutMs     an HTTP connection that neither reads nor writes this long is closed; 0 for never
 * @param entityFastPath    plain entity requests are answered in front of the router (false: every request is routed)
 * @param replicaTimeoutMs  how long a coordinator waits for one replica's answer
 * @param maxClockOffsetMs  a version more than this ahead of the node's wall clock is refused, never adopted
 * @param clusterSecret     required on internal (replica) requests when set; null for none
 * @param auth              the API tokens and what each may do ({@code adminToken} and {@code auth})
 * @param hints             hinted handoff settings
 * @param storage           RocksDB settings
 * @param antiEntropy       how replicas compare and repair what they share
 * @param transfer          how fast this node takes in records when the topology changes
 * @param admission         the bounds past which client requests are refused with 503
 * @param backup            where backups go and how many are kept
 * @param tls               TLS on the node's port and between nodes; null for plain HTTP
 */
public record NodeConfig(NodeUrl url, List<NodeUrl> cluster, int replicationFactor, Path dataDir, HazelcastConfig hazelcast,
                         int eventLoops, long maxBodyBytes, long shutdownTimeoutMs, long idleTimeoutMs,
                         boolean entityFastPath, long replicaTimeoutMs, long maxClockOffsetMs, String clusterSecret, AuthConfig auth, HintsConfig hints, StorageConfig storage,
                         AntiEntropyConfig antiEntropy, TransferConfig transfer, AdmissionConfig admission,
                         BackupConfig backup, TlsConfig tls) {

  public static final String DEFAULT_URL = "http://127.0.0.1:8080";
  public static final String DEFAULT_DATA_DIR = "data";
  public static final long DEFAULT_MAX_BODY_BYTES = 16L << 20;
  public static final long DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
  /**
   * Longer than the 60 s keep-alive of Vert.x HTTP clients (the replica clients use the default), so a
   * pooled replica connection is retired by its client before the server could close it under a request.
   */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 120_000;
  public static final long DEFAULT_REPLICA_TIMEOUT_MS = 1_000;
  public static final long DEFAULT_MAX_CLOCK_OFFSET_MS = 5_000;
  /** Cassandra's usual replication factor: a majority (2) still answers with one replica down. */
  public static final int DEFAULT_REPLICATION_FACTOR = 3;
  /** Far beyond any useful factor; a record's replica count must stay below {@code Record.EVERY_NODE}. */
  public static final int MAX_REPLICATION_FACTOR = 1_000;

  public static int defaultEventLoops() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** The node started with no arguments: one node on 127.0.0.1:8080, data under ./data. */
  public static NodeConfig defaults() {
    NodeUrl url = NodeUrl.parse("url", DEFAULT_URL);
    return new NodeConfig(url, List.of(url), DEFAULT_REPLICATION_FACTOR, Path.of(DEFAULT_DATA_DIR), null, defaultEventLoops(),
        DEFAULT_MAX_BODY_BYTES, DEFAULT_SHUTDOWN_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, true, DEFAULT_REPLICA_TIMEOUT_MS,
        DEFAULT_MAX_CLOCK_OFFSET_MS, null, AuthConfig.OPEN, HintsConfig.defaults(), StorageConfig.defaults(),
        AntiEntropyConfig.defaults(), TransferConfig.defaults(), AdmissionConfig.defaults(),
        BackupConfig.defaults(Path.of(DEFAULT_DATA_DIR)), null);
  }

  public int clusterSize() {
    return cluster.size();
  }

  /**
   * How long a stopping node waits, once its HTTP server is shut down, for the replica writes of
   * answered requests still running (and the hints of those that fail): a replica timeout and a second.
   */
  public long settleTimeoutMs() {
    return replicaTimeoutMs + 1_000;
  }

  /**
   * The longest a graceful stop may take: the HTTP server's shutdown, settling the replica writes,
   * draining hints, then the verticles' and RocksDB's own closing (a 5 s margin).
   */
  public long stopTimeoutMs() {
    return shutdownTimeoutMs + settleTimeoutMs() + hints.drainOnStopMs() + 5_000;
  }
}
