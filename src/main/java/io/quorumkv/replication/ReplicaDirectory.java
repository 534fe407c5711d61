package io.quorumkv.replication;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.RetryWhileAlive;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.internal.ContextInternal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replica of each node, as seen from one event loop: this node's own store locally, any other
 * node over HTTP. Replicas are made on first use, so nodes that join later have one too.
 */
public final class ReplicaDirectory {
  /** A node that joined membership may not serve HTTP yet: it is tried this many times, at growing intervals. */
  static final int CONNECT_AHEAD_ATTEMPTS = 30;
  static final long CONNECT_AHEAD_FIRST_RETRY_MS = 250;
  static final long CONNECT_AHEAD_MAX_RETRY_MS = 5_000;

  private final Vertx vertx;
  private final NodeConfig config;
  private final ContextInternal context;
  private final PeerClient client;
  private final Replica local;
  private final StreamObserver streams;
  private final Map<NodeUrl, RemoteReplica> remote = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** Call from the event loop that will use the replicas: the connections to the peers stay on it. */
  public ReplicaDirectory(Vertx vertx, NodeConfig config, StorageService storage, StreamObserver streams) {
    this.vertx = vertx;
    this.config = config;
    this.streams = streams;
    this.local = new LocalReplica(storage);
    this.context = (ContextInternal) vertx.getOrCreateContext();
    // A RemoteReplica never has more batches in flight than this, so more connections would idle.
    this.client = new PeerClient(vertx, config, InternalEndpoint.Timeout.REPLICA,
        new PoolOptions().setHttp1MaxSize(RemoteReplica.MAX_IN_FLIGHT));
  }

  public Replica get(NodeUrl node) {
    return node.equals(config.url()) ? local : remote(node);
  }

  private RemoteReplica remote(NodeUrl node) {
    return remote.computeIfAbsent(node, other -> new RemoteReplica(vertx, other, client,
        new BatchStream(context, client, other, config.maxBodyBytes(), client.timeoutMs(InternalEndpoint.RECORD_STREAM),
            BatchStream.KEEP_ALIVE_MS, streams)));
  }

  /**
   * Opens a batch stream to every other node membership sees alive, now and whenever one joins,
   * so that no request waits for a connection and its upgrade. A node joins membership before
   * it serves HTTP, so one that cannot be reached yet is tried again while it stays alive, up to
   * {@link #CONNECT_AHEAD_ATTEMPTS} times. Stops when the verticle that made this directory is
   * undeployed. Call on that verticle's event loop.
   */
  public void connectAhead(LiveNodes liveNodes) {
    Runnable unsubscribe = liveNodes.onJoined(joined -> context.runOnContext(v -> connectAhead(joined, liveNodes)));
    context.addCloseHook(completion -> {
      closed = true;
      unsubscribe.run();
      completion.succeed();
    });
    liveNodes.alive().forEach(node -> connectAhead(node, liveNodes));
  }

  private void connectAhead(NodeUrl node, LiveNodes liveNodes) {
    if (node.equals(config.url())) {
      return;
    }
    RetryWhileAlive.run(vertx, liveNodes, node, CONNECT_AHEAD_ATTEMPTS,
        attempt -> Math.min(CONNECT_AHEAD_FIRST_RETRY_MS << Math.min(attempt, 10), CONNECT_AHEAD_MAX_RETRY_MS),
        () -> closed || !liveNodes.isAlive(node) ? Future.succeededFuture() : remote(node).connectAhead());
  }
}
