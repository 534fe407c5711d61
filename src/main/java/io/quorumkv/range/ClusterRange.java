package io.quorumkv.range;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.placement.ReplicaPlacement;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.QueryParams;
import io.quorumkv.wire.RecordLayout;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Opens the sources of a cluster-wide range, one per node of the topology: this node's store
 * directly, every other node over its {@link RangeProtocol} stream, with an HTTP client of this
 * event loop's own (one connection per remote node per range request in progress).
 */
public final class ClusterRange {
  /** Ranges in progress at once through one event loop to one node; more wait for a connection. */
  private static final int MAX_CONNECTIONS_PER_NODE = 16;
  /**
   * The kernel's receive buffer of a range connection. Fixed (Linux then stops auto-tuning it,
   * which may grow it to tens of MB) so that a paused source holds little more than its batch,
   * in the kernel as in the heap; a MB still covers a LAN's bandwidth-delay product many times.
   */
  private static final int RECEIVE_BUFFER_BYTES = 1 << 20;

  private final NodeConfig config;
  private final LiveNodes liveNodes;
  private final Supplier<? extends ReplicaPlacement> topology;
  private final StorageService storage;
  private final PeerClient client;

  /** Call on the event loop that will run the ranges: the client's connections stay on it. */
  public ClusterRange(Vertx vertx, NodeConfig config, Supplier<? extends ReplicaPlacement> topology, LiveNodes liveNodes,
                      StorageService storage) {
    this.config = config;
    this.topology = topology;
    this.liveNodes = liveNodes;
    this.storage = storage;
    this.client = new PeerClient(vertx, config, InternalEndpoint.Timeout.STREAM,
        new PoolOptions().setHttp1MaxSize(MAX_CONNECTIONS_PER_NODE),
        options -> options.setReceiveBufferSize(RECEIVE_BUFFER_BYTES));
  }

  /** The nodes of the topology that membership sees down: a cluster range needs none. */
  public List<NodeUrl> down() {
    return topology.get().readNodes().stream().filter(node -> !liveNodes.isAlive(node)).toList();
  }

  public int nodes() {
    return topology.get().readSize();
  }

  /** One unstarted source per node of the topology for {@code [start, end)} ({@code end} null for no bound). */
  public List<RangeSource> sources(byte[] start, byte[] end) {
    String query = QueryParams.rangeQuery(start, end);
    int maxPayloadBytes = RecordLayout.maxPayloadBytes(config.maxBodyBytes());
    List<RangeSource> sources = new ArrayList<>();
    for (NodeUrl node : topology.get().readNodes()) {
      sources.add(node.equals(config.url())
          ? new LocalRangeSource(node, storage, start, end)
          : new RemoteRangeSource(client, InternalEndpoint.RANGE, node, query, maxPayloadBytes));
    }
    return sources;
  }
}
