package io.quorumkv;

import com.hazelcast.core.HazelcastInstance;
import io.quorumkv.admin.NodeMetrics;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.cluster.JoinRetry;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.peer.PeerCertificates;
import io.quorumkv.topology.HazelcastBoard;
import io.quorumkv.topology.TopologyBoard;
import io.quorumkv.web.TlsOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * A node's Vert.x, with what it learns of the other nodes through it: a single node gets a local
 * Vert.x, the only member of its own board; a node of a cluster joins Hazelcast (a join Hazelcast
 * refuses for its cluster state is tried again, {@link JoinRetry}) and follows its membership; its
 * board seals what it writes with the cluster secret (without one, it warns that Hazelcast is trusted).
 *
 * @param metrics the registry the Vert.x reports to
 * @param peers   tells other nodes' connections from clients' (under TLS)
 */
record Bootstrap(Vertx vertx, LiveNodes liveNodes, TopologyBoard board, NodeMetrics metrics, PeerCertificates peers) {
  private static final System.Logger LOG = System.getLogger(Bootstrap.class.getName());

  /** Starts on the caller's thread, which may block: it reads the cluster's CA. */
  static Future<Bootstrap> start(NodeConfig config) {
    PeerCertificates peers;
    try {
      peers = config.tls() == null ? PeerCertificates.none() : PeerCertificates.load(config.tls());
    } catch (IOException | GeneralSecurityException e) {
      return Future.failedFuture(new StartupException("cannot read tls.caFile: " + e.getMessage(), e));
    }
    if (config.clusterSize() == 1) {
      NodeMetrics metrics = new NodeMetrics();
      Vertx vertx = Vertx.builder().with(vertxOptions(config, metrics)).withMetrics(metrics.vertxMetricsFactory())
          .build();
      return Future.succeededFuture(
          new Bootstrap(vertx, LiveNodes.onlySelf(config.url()), TopologyBoard.local(), metrics, peers));
    }
    return JoinRetry.standard().join(() -> joinCluster(config))
        .recover(e -> Future.failedFuture(new StartupException("cannot join the cluster: " + e.getMessage(), e)))
        .map(joined -> {
          HazelcastMembership membership = new HazelcastMembership(config.url());
          membership.follow(joined.hazelcast());
          if (config.clusterSecret() == null) {
            LOG.log(System.Logger.Level.WARNING, "no clusterSecret in the conf: the topology and the reports on"
                + " Hazelcast are taken as they are, and any host that joins the Hazelcast group can rewrite the"
                + " cluster's topology (and make it drop data); set the same clusterSecret on every node");
          }
          return new Bootstrap(joined.vertx(), membership, new HazelcastBoard(joined.vertx(), joined.hazelcast(),
              config.url(), config.clusterSecret(), joined.metrics()), joined.metrics(), peers);
        });
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
    if (config.tls() != null) {
      TlsOptions.secure(options.getEventBusOptions(), config.tls());
    }
    HazelcastClusterManager clusterManager = HazelcastMembership.clusterManager(config.url(), config.hazelcast());
    return Vertx.builder().with(options).withMetrics(metrics.vertxMetricsFactory()).withClusterManager(clusterManager)
        .buildClustered().map(vertx -> new Joined(vertx, clusterManager.getHazelcastInstance(), metrics));
  }
}
