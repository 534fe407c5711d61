package io.quorumkv.replication;

import io.quorumkv.cluster.PeerClientOptions;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replica of each node, as seen from one event loop: this node's own store locally, any other
 * node over HTTP. Replicas are made on first use, so nodes that join later have one too.
 */
public final class ReplicaDirectory {
  private final Vertx vertx;
  private final NodeConfig config;
  private final ContextInternal context;
  private final HttpClient httpClient;
  private final WebClient client;
  private final Replica local;
  private final Map<NodeUrl, Replica> remote = new ConcurrentHashMap<>();

  /** Call from the event loop that will use the replicas: the connections to the peers stay on it. */
  public ReplicaDirectory(Vertx vertx, NodeConfig config, StorageService storage) {
    this.vertx = vertx;
    this.config = config;
    this.local = new LocalReplica(storage);
    this.context = (ContextInternal) vertx.getOrCreateContext();
    WebClientOptions options = PeerClientOptions.from(config.url(), config.replicaTimeoutMs());
    // A RemoteReplica never has more batches in flight than this, so more connections would idle.
    this.httpClient = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(RemoteReplica.MAX_IN_FLIGHT));
    this.client = WebClient.wrap(httpClient, options);
  }

  public Replica get(NodeUrl node) {
    if (node.equals(config.url())) {
      return local;
    }
    return remote.computeIfAbsent(node, other -> new RemoteReplica(vertx, other, client,
        new BatchStream(context, httpClient, other, config.clusterSecret(), config.maxBodyBytes(),
            config.replicaTimeoutMs()),
        config.replicaTimeoutMs(), config.clusterSecret()));
  }
}
