package io.quorumkv.replication;

import io.quorumkv.cluster.PeerClientOptions;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;

import java.util.HashMap;
import java.util.Map;

/** Builds the replica for every node of the topology, as seen from one event loop. */
public final class ReplicaDirectory {
  private ReplicaDirectory() {
  }

  /** Call from the event loop that will use the replicas: the HTTP client's connections stay on it. */
  public static Map<NodeUrl, Replica> create(Vertx vertx, NodeConfig config, StorageService storage) {
    Map<NodeUrl, Replica> replicas = new HashMap<>();
    WebClient client = null;
    for (NodeUrl node : config.cluster()) {
      if (node.equals(config.url())) {
        replicas.put(node, new LocalReplica(storage));
      } else {
        if (client == null) {
          client = WebClient.create(vertx, PeerClientOptions.from(config.url(), config.replicaTimeoutMs()),
              // A RemoteReplica never has more batches in flight than this, so more connections would idle.
              new PoolOptions().setHttp1MaxSize(RemoteReplica.MAX_IN_FLIGHT));
        }
        replicas.put(node, new RemoteReplica(vertx, node, client, config.replicaTimeoutMs(), config.clusterSecret()));
      }
    }
    return Map.copyOf(replicas);
  }
}
