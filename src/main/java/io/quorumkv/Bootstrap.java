package io.quorumkv;

import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.peer.PeerCertificates;
import io.quorumkv.topology.HazelcastBoard;
import io.quorumkv.topology.TopologyBoard;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * A node's Vert.x, with what it learns of the other nodes: a single node is the only member of
 * its own board; a node of a cluster joins Hazelcast beside its Vert.x, which is never clustered
 * (nodes talk over HTTP only), and follows its membership; its board seals what it writes with the
 * cluster secret (without one, it warns that Hazelcast is trusted).
 *
 * @param metrics    the registry the Vert.x reports to
 * @param peers      tells other nodes' connections from clients' (under TLS)
 * @param membership the Hazelcast membership of a node of a cluster, null for a single node
 */
record Bootstrap(Vertx vertx, LiveNodes liveNodes, TopologyBoard board, NodeMetrics metrics, PeerCertificates peers,
                 HazelcastMembership membership) {
  private static final System.Logger LOG = System.getLogger(Bootstrap.class.getName());

  /** Starts on the caller's thread, which may block: it reads the cluster's CA. */
  static Future<Bootstrap> start(NodeConfig config) {
    PeerCertificates peers;
    try {
      peers = config.tls() == null ? PeerCertificates.none() : PeerCertificates.load(config.tls());
    } catch (IOException | GeneralSecurityException e) {
      return Future.failedFuture(new StartupException("cannot read tls.caFile: " + e.getMessage(), e));
    }
    NodeMetrics metrics = new NodeMetrics();
    Vertx vertx = Vertx.builder().with(vertxOptions(config, metrics)).withMetrics(metrics.vertxMetricsFactory())
        .build();
    if (config.clusterSize() == 1) {
      return Future.succeededFuture(new Bootstrap(vertx, LiveNodes.onlySelf(config.url()), TopologyBoard.local(),
          metrics, peers, null));
    }
    return HazelcastMembership.join(vertx, config.url(), config.hazelcast(), config.clusterSecret(), metrics)
        .map(membership -> {
          if (config.clusterSecret() == null) {
            LOG.log(System.Logger.Level.WARNING, "no clusterSecret in the conf: the topology and the reports on"
                + " Hazelcast are taken as they are, and any host that joins the Hazelcast group can rewrite the"
                + " cluster's topology (and make it drop data) or pass for a node; set the same clusterSecret on"
                + " every node");
          }
          return new Bootstrap(vertx, membership, new HazelcastBoard(vertx, membership, config.url(),
              config.clusterSecret(), metrics), metrics, peers, membership);
        })
        .recover(e -> vertx.close().transform(closed -> Future.failedFuture(
            new StartupException("cannot join the cluster: " + e.getMessage(), e))));
  }

  /** Leaves the Hazelcast group (a node of a cluster), then closes the Vert.x. */
  Future<Void> close() {
    // Bound to no context: a Future bound to one of the Vert.x's event loops could not complete once it closed.
    Promise<Void> closed = Promise.promise();
    Future<Void> left = membership == null ? Future.succeededFuture() : membership.leave();
    left.onComplete(leaving -> vertx.close().onComplete(closed));
    return closed.future();
  }

  private static VertxOptions vertxOptions(NodeConfig config, NodeMetrics metrics) {
    return metrics.instrument(new VertxOptions()
        .setPreferNativeTransport(true)
        .setEventLoopPoolSize(config.eventLoops())
        .setWorkerPoolSize(Math.max(VertxOptions.DEFAULT_WORKER_POOL_SIZE, config.storage().workers())));
  }
}
