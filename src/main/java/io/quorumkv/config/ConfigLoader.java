package io.quorumkv.config;

import io.quorumkv.versioning.ClockLease;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;

/** Reads a conf file into a {@link NodeConfig}; every problem is a {@link ConfigException} of one line. */
public final class ConfigLoader {
  private static final System.Logger LOG = System.getLogger(ConfigLoader.class.getName());
  private static final int MAX_EVENT_LOOPS = 256;
  private static final int MAX_STORAGE_WORKERS = 256;
  private static final int MAX_ADMISSION_BOUND = 1_000_000;
  /** About 24 MB of direct memory for the filter. */
  private static final long MAX_NEW_KEY_FILTER_KEYS = 20_000_000L;
  private static final long MAX_BACKUPS_RETAINED = 10_000;

  private ConfigLoader() {
  }

  public static NodeConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException("conf file " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException("cannot read conf file " + file + ": " + e.getMessage());
    }
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      throw new ConfigException("conf file " + file + " is not a JSON object: " + firstLine(e.getMessage()));
    }
    return parse(json);
  }

  /**
   * The conf of a JSON object; a section's keys may be nested ({@code "hints": {"windowMs": 1}}) or
   * dotted ({@code "hints.windowMs": 1}).
   */
  public static NodeConfig parse(JsonObject json) {
    JsonSection root = new JsonSection(DottedKeys.nest(json), "");
    NodeUrl url = NodeUrl.parse("url", root.requiredString("url"));
    List<NodeUrl> cluster = cluster(root, url);
    int replicationFactor = root.positiveInt("replicationFactor", NodeConfig.DEFAULT_REPLICATION_FACTOR,
        NodeConfig.MAX_REPLICATION_FACTOR);
    Path dataDir = Path.of(root.string("dataDir", NodeConfig.DEFAULT_DATA_DIR));
    HazelcastConfig hazelcast = root.section("hazelcast", ConfigLoader::hazelcast);
    int eventLoops = root.positiveInt("eventLoops", NodeConfig.defaultEventLoops(), MAX_EVENT_LOOPS);
    long maxBodyBytes = root.positiveLong("maxBodyBytes", NodeConfig.DEFAULT_MAX_BODY_BYTES);
    long shutdownTimeoutMs = root.positiveLong("shutdownTimeoutMs", NodeConfig.DEFAULT_SHUTDOWN_TIMEOUT_MS);
    long idleTimeoutMs = root.nonNegativeLong("idleTimeoutMs", NodeConfig.DEFAULT_IDLE_TIMEOUT_MS);
    boolean entityFastPath = root.bool("entityFastPath", true);
    long replicaTimeoutMs = root.positiveLong("replicaTimeoutMs", NodeConfig.DEFAULT_REPLICA_TIMEOUT_MS);
    long maxClockOffsetMs = root.positiveLong("maxClockOffsetMs", NodeConfig.DEFAULT_MAX_CLOCK_OFFSET_MS,
        ClockLease.MAX_CLOCK_OFFSET_MS);
    String clusterSecret = root.string("clusterSecret", null);
    if (clusterSecret != null && clusterSecret.isEmpty()) {
      throw new ConfigException("'clusterSecret' must not be empty (leave it out for no secret)");
    }
    AuthConfig auth = AuthConfig.read(root);
    HintsConfig hints = root.section("hints", ConfigLoader::hints);
    StorageConfig storage = root.section("storage", ConfigLoader::storage);
    AntiEntropyConfig antiEntropy = root.section("antiEntropy", ConfigLoader::antiEntropy);
    TransferConfig transfer = root.section("transfer", ConfigLoader::transfer);
    AdmissionConfig admission = root.section("admission", ConfigLoader::admission);
    BackupConfig backup = root.section("backup", section -> backup(section, dataDir));
    TlsConfig tls = root.section("tls", section -> TlsConfig.parse(section, url, cluster.size()));
    root.rejectUnknownKeys();
    if (url.secure() && tls == null) {
      throw new ConfigException("an https url needs a 'tls' section (certFile, keyFile, caFile)");
    }
    if (cluster.size() > 1 && hazelcast == null) {
      throw new ConfigException("'hazelcast' is required when 'cluster' has more than one node");
    }
    warnAboutResurrection(cluster.size(), storage == null ? StorageConfig.defaults() : storage,
        hints == null ? HintsConfig.defaults() : hints);
    return new NodeConfig(url, cluster, replicationFactor, dataDir, hazelcast, eventLoops, maxBodyBytes, shutdownTimeoutMs,
        idleTimeoutMs, entityFastPath, replicaTimeoutMs, maxClockOffsetMs, clusterSecret, auth,
        hints == null ? HintsConfig.defaults() : hints, storage == null ? StorageConfig.defaults() : storage,
        antiEntropy == null ? AntiEntropyConfig.defaults() : antiEntropy,
        transfer == null ? TransferConfig.defaults() : transfer,
        admission == null ? AdmissionConfig.defaults() : admission,
        backup == null ? BackupConfig.defaults(dataDir) : backup, tls);
  }

  private static void warnAboutResurrection(int clusterSize, StorageConfig storage, HintsConfig hints) {
    if (clusterSize > 1 && storage.purgeGraceMs() < hints.windowMs()) {
      LOG.log(System.Logger.Level.WARNING, "storage.purgeGraceMs (" + storage.purgeGraceMs()
          + ") is shorter than hints.windowMs (" + hints.windowMs() + "): a replica that missed a delete"
          + " could bring the value back after the tombstone is purged (docs/consistency.md)");
    }
  }

  private static List<NodeUrl> cluster(JsonSection root, NodeUrl url) {
    List<String> texts = root.strings("cluster");
    if (texts == null) {
      return List.of(url);
    }
    List<NodeUrl> cluster = new ArrayList<>();
    for (String text : texts) {
      NodeUrl node = NodeUrl.parse("cluster", text);
      if (node.secure() != url.secure()) {
        throw new ConfigException("'cluster' lists " + node + ", but the url is " + url + ": every node uses one scheme");
      }
      cluster.add(node);
    }
    if (new HashSet<>(cluster).size() != cluster.size()) {
      throw new ConfigException("'cluster' lists a node twice");
    }
    if (!cluster.contains(url)) {
      throw new ConfigException("url " + url + " is not in 'cluster'");
    }
    cluster.sort(Comparator.comparing(NodeUrl::toString));
    return List.copyOf(cluster);
  }

  private static HazelcastConfig hazelcast(JsonSection section) {
    int port = section.positiveInt("port", HazelcastConfig.DEFAULT_PORT, 65535);
    List<String> members = section.strings("members");
    String clusterName = section.string("clusterName", HazelcastConfig.DEFAULT_CLUSTER_NAME);
    int maxNoHeartbeat = section.positiveInt("maxNoHeartbeatSeconds", HazelcastConfig.DEFAULT_MAX_NO_HEARTBEAT_SECONDS, 3600);
    return new HazelcastConfig(port, members == null ? List.of() : List.copyOf(members), clusterName, maxNoHeartbeat);
  }

  private static HintsConfig hints(JsonSection section) {
    HintsConfig d = HintsConfig.defaults();
    return new HintsConfig(
        section.positiveLong("windowMs", d.windowMs()),
        section.positiveLong("retryMs", d.retryMs()),
        section.nonNegativeLong("drainOnStopMs", d.drainOnStopMs()));
  }

  private static StorageConfig storage(JsonSection section) {
    StorageConfig d = StorageConfig.defaults();
    return new StorageConfig(
        section.positiveInt("workers", d.workers(), MAX_STORAGE_WORKERS),
        section.positiveLong("blockCacheBytes", d.blockCacheBytes()),
        section.nonNegativeLong("rowCacheBytes", d.rowCacheBytes()),
        section.positiveLong("writeBufferBytes", d.writeBufferBytes()),
        section.positiveLong("sweepIntervalMs", d.sweepIntervalMs()),
        section.nonNegativeLong("purgeGraceMs", d.purgeGraceMs()),
        section.nonNegativeLong("newKeyFilterKeys", d.newKeyFilterKeys(), MAX_NEW_KEY_FILTER_KEYS),
        section.bool("writesOnLoop", d.writesOnLoop()));
  }

  private static AntiEntropyConfig antiEntropy(JsonSection section) {
    AntiEntropyConfig d = AntiEntropyConfig.defaults();
    return new AntiEntropyConfig(
        section.positiveLong("intervalMs", d.intervalMs()),
        section.positiveLong("recordsPerSecond", d.recordsPerSecond()),
        section.positiveLong("bytesPerSecond", d.bytesPerSecond()));
  }

  private static TransferConfig transfer(JsonSection section) {
    TransferConfig d = TransferConfig.defaults();
    return new TransferConfig(
        section.positiveLong("recordsPerSecond", d.recordsPerSecond()),
        section.positiveLong("bytesPerSecond", d.bytesPerSecond()));
  }

  private static AdmissionConfig admission(JsonSection section) {
    AdmissionConfig d = AdmissionConfig.defaults();
    return new AdmissionConfig(
        (int) section.nonNegativeLong("maxRequestsPerLoop", d.maxRequestsPerLoop(), MAX_ADMISSION_BOUND),
        (int) section.nonNegativeLong("maxQueuedStorage", d.maxQueuedStorage(), MAX_ADMISSION_BOUND),
        section.nonNegativeLong("clientBodyBytes", d.clientBodyBytes()));
  }

  private static BackupConfig backup(JsonSection section, Path dataDir) {
    BackupConfig d = BackupConfig.defaults(dataDir);
    String dir = section.string("dir", null);
    if (dir != null && dir.isBlank()) {
      throw new ConfigException("'backup.dir' must not be empty (leave it out for " + d.dir() + ")");
    }
    return new BackupConfig(dir == null ? d.dir() : Path.of(dir),
        (int) section.nonNegativeLong("retain", d.retain(), MAX_BACKUPS_RETAINED));
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
