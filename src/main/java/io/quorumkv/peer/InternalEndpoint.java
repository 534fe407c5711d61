package io.quorumkv.peer;

import io.quorumkv.config.NodeConfig;
import io.vertx.core.http.HttpMethod;

/**
 * Every endpoint nodes call on each other, in one table: its method, path and how long the caller
 * waits. Each is behind the cluster secret ({@link PeerAuthorization}) and mounted by the handler
 * of its feature (in that feature's package) through {@link PeerRoutes}, which records the
 * handler's class: {@link PeerRoutes#answeredBy}.
 */
public enum InternalEndpoint {
  /** One replica's own copy of a record, metadata in headers: for tools and tests. */
  RECORD_GET(HttpMethod.GET, "/internal/v0/record", Timeout.NONE),
  RECORD_PUT(HttpMethod.PUT, "/internal/v0/record", Timeout.NONE),
  /** A batch of replica reads and writes, for a node without batch streams. */
  RECORD_BATCH(HttpMethod.POST, "/internal/v0/records", Timeout.REPLICA),
  /** Upgraded to a stream of batches ({@code Upgrade: quorumkv-records}). */
  RECORD_STREAM(HttpMethod.GET, "/internal/v0/records/stream", Timeout.REPLICA),
  /** A conditional write sent to the key's first live replica, which runs it. */
  CONDITIONAL_PUT(HttpMethod.PUT, "/internal/v0/conditional", Timeout.CONDITIONAL),
  CONDITIONAL_DELETE(HttpMethod.DELETE, "/internal/v0/conditional", Timeout.CONDITIONAL),
  /** The records a node gains in the streaming step of a topology change. */
  TRANSFER(HttpMethod.GET, "/internal/v0/transfer", Timeout.TRANSFER),
  /** Every record a node stores in a key range, for a cluster-wide range. */
  RANGE(HttpMethod.GET, "/internal/v0/range", Timeout.STREAM),
  /** Anti-entropy: compare tree roots, then branches, then list keys, then report an exchange done. */
  TREE_ROOT(HttpMethod.GET, "/internal/v0/tree", Timeout.TREE),
  TREE_SEGMENTS(HttpMethod.POST, "/internal/v0/tree/segments", Timeout.TREE),
  TREE_KEYS(HttpMethod.POST, "/internal/v0/tree/keys", Timeout.TREE),
  TREE_DONE(HttpMethod.POST, "/internal/v0/tree/done", Timeout.TREE),
  /** A JFR start or stop given with {@code scope=cluster} to one node, which checked it and sends it to every node. */
  JFR_COMMAND(HttpMethod.POST, "/internal/v0/jfr", Timeout.COMMAND),
  /** A backup of the node, asked by the node given {@code scope=cluster}, which checked the caller's token. */
  BACKUP_TAKE(HttpMethod.POST, "/internal/v0/backup", Timeout.BACKUP);

  /** The header the cluster secret travels in. */
  public static final String SECRET_HEADER = "X-QKV-Cluster-Secret";

  private final HttpMethod method;
  private final String path;
  private final Timeout timeout;

  InternalEndpoint(HttpMethod method, String path, Timeout timeout) {
    this.method = method;
    this.path = path;
    this.timeout = timeout;
  }

  public HttpMethod method() {
    return method;
  }

  public String path() {
    return path;
  }

  public Timeout timeout() {
    return timeout;
  }

  /** How long a caller waits for an endpoint's answer, and for a connection to it. */
  public enum Timeout {
    /** No node calls it; tools and tests set their own. */
    NONE("none (tools and tests)"),
    /** Each operation: {@code replicaTimeoutMs} from when it was asked, plus 1 ms per 4 KiB of its bytes. */
    REPLICA("replicaTimeoutMs per operation, plus 1 ms per 4 KiB it carries"),
    /**
     * The first replica's lock wait (2 replica timeouts), a quorum read and a write, and one more;
     * connecting to it takes no longer than to any replica.
     */
    CONDITIONAL("5 x replicaTimeoutMs, connecting within replicaTimeoutMs"),
    /**
     * A stream: its first byte (connecting included) within the open timeout, then data at least
     * every idle timeout.
     */
    STREAM("10 s to the first byte, then 30 s between data"),
    /**
     * A transfer: connecting within the open timeout, then as long as its source sends (the
     * receiver shows a stalled one in {@code /v0/cluster}; it resumes from its cursor when restarted).
     */
    TRANSFER("10 s to connect, then none"),
    /** Each request of an exchange: a tree request answers in memory, a keys request reads a few segments. */
    TREE("30 s"),
    /** An admin command run on each node: a JFR recording starts or stops in well under a second. */
    COMMAND("30 s"),
    /**
     * A backup: connecting within the open timeout, then its answer once the checkpoint, the count
     * and the checksums of a large store are done (about a second a million records).
     */
    BACKUP("10 s to connect, then 30 min");

    /** A stream's first byte, connecting included. */
    public static final long STREAM_OPEN_MS = 10_000;
    /** A stream's data, once it started: past this the merge gives up on a node it needs. */
    public static final long STREAM_IDLE_MS = 30_000;
    public static final long TREE_MS = 30_000;
    public static final long BACKUP_MS = 30 * 60_000;

    private final String description;

    Timeout(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }

    /** The wait in milliseconds with this conf: a stream's first byte (a transfer's connection); 0 for none. */
    public long millis(NodeConfig config) {
      return switch (this) {
        case NONE -> 0;
        case REPLICA -> config.replicaTimeoutMs();
        case CONDITIONAL -> 5 * config.replicaTimeoutMs();
        case STREAM, TRANSFER -> STREAM_OPEN_MS;
        case TREE, COMMAND -> TREE_MS;
        case BACKUP -> BACKUP_MS;
      };
    }

    /** How long connecting may take with this conf: as long as the answer, but a conditional write's and a backup's. */
    public long connectMillis(NodeConfig config) {
      return switch (this) {
        case CONDITIONAL -> config.replicaTimeoutMs();
        case BACKUP -> STREAM_OPEN_MS;
        default -> millis(config);
      };
    }
  }
}
