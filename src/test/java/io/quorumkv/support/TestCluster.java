package io.quorumkv.support;

import io.quorumkv.Node;
import io.quorumkv.config.AdmissionConfig;
import io.quorumkv.config.ConfigLoader;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * N real nodes in this JVM, clustered through real Hazelcast on loopback, each with its own
 * data directory, HTTP port and Hazelcast port, and a cluster name of their own so that
 * clusters of other tests never merge in. Nodes can be stopped and started again.
 */
public final class TestCluster implements AutoCloseable {
  private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

  static {
    HAZELCAST_LOG.setLevel(Level.WARNING);
  }

  private final List<NodeConfig> configs;
  private final Node[] nodes;
  private final GatedStore[] gates;
  private final SkewedClock[] clocks;

  private TestCluster(List<NodeConfig> configs) {
    this.configs = configs;
    this.nodes = new Node[configs.size()];
    this.gates = new GatedStore[configs.size()];
    this.clocks = new SkewedClock[configs.size()];
    java.util.Arrays.setAll(clocks, i -> new SkewedClock());
  }

  /** Starts {@code size} nodes; {@code extra} conf keys go to every node. */
  private static final long ANTI_ENTROPY_OFF_MS = 24 * 3_600_000L;

  public static TestCluster start(int size, Path dataRoot, JsonObject extra) {
    return start(size, dataRoot, extra, node -> new JsonObject());
  }

  /** As {@link #start(int, Path, JsonObject)}, with conf keys of node {@code i}'s own from {@code nodeConf}. */
  public static TestCluster start(int size, Path dataRoot, JsonObject extra, IntFunction<JsonObject> nodeConf) {
    // The topology must be known before any node starts, so ports are picked up front
    // (free when picked; another process could take one in between, which fails the start loudly).
    // One pick for both lists: two separate picks could hand the same port to HTTP and Hazelcast.
    List<Integer> ports = freePorts(2 * size);
    List<Integer> httpPorts = ports.subList(0, size);
    List<Integer> hazelcastPorts = ports.subList(size, 2 * size);
    JsonArray cluster = new JsonArray();
    JsonArray members = new JsonArray();
    for (int i = 0; i < size; i++) {
      cluster.add("http://127.0.0.1:" + httpPorts.get(i));
      members.add("127.0.0.1:" + hazelcastPorts.get(i));
    }
    String clusterName = "test-" + UUID.randomUUID();
    List<NodeConfig> configs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      JsonObject json = new JsonObject()
          .put("url", cluster.getString(i))
          .put("cluster", cluster)
          .put("dataDir", dataRoot.resolve("node-" + i).toString())
          .put("eventLoops", 1)
          // One loop to spare the test machine's cores, with the in-flight bound of a 2-core node.
          .put("admission", new JsonObject().put("maxRequestsPerLoop", 2 * AdmissionConfig.DEFAULT_MAX_REQUESTS_PER_LOOP))
          .put("replicaTimeoutMs", 2_000)
          .put("storage", new JsonObject().put("workers", 2))
          // Exchanges stay out of the way of what these tests look at (read repair, hints, a stale
          // replica), unless a test asks for them; AntiEntropyTest runs them on node processes.
          .put("antiEntropy", new JsonObject().put("intervalMs", ANTI_ENTROPY_OFF_MS))
          .put("hazelcast", new JsonObject().put("port", hazelcastPorts.get(i)).put("members", members)
              .put("clusterName", clusterName))
          .mergeIn(extra, true)
          .mergeIn(nodeConf.apply(i), true);
      configs.add(ConfigLoader.parse(json));
    }
    TestCluster testCluster = new TestCluster(configs);
    List<Future<Node>> starting = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      starting.add(testCluster.startNode(i));
    }
    for (int i = 0; i < size; i++) {
      testCluster.nodes[i] = Await.result(starting.get(i));
    }
    testCluster.awaitAllSeeAll();
    return testCluster;
  }

  public int size() {
    return nodes.length;
  }

  public Http http(int node) {
    return new Http(configs.get(node).url().toString());
  }

  public NodeUrl url(int node) {
    return configs.get(node).url();
  }

  public NodeConfig config(int node) {
    return configs.get(node);
  }

  /** The index of the node with this url. */
  public int indexOf(NodeUrl url) {
    for (int i = 0; i < configs.size(); i++) {
      if (configs.get(i).url().equals(url)) {
        return i;
      }
    }
    throw new IllegalArgumentException(url + " is not in the cluster");
  }

  /** What node {@code i} holds for the key in its own store (null if nothing); the node must be running. */
  public Record localRecord(int node, String key) {
    return nodes[node].store().get(key.getBytes(StandardCharsets.UTF_8));
  }

  public void stop(int node) {
    Await.result(nodes[node].stop());
    nodes[node] = null;
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i] != null) {
        int observer = i;
        Await.until(url(observer) + " sees " + url(node) + " down", Duration.ofSeconds(30),
            () -> !nodes[observer].liveNodes().isAlive(url(node)));
      }
    }
  }

  public void restart(int node) {
    nodes[node] = Await.result(startNode(node));
    awaitAllSeeAll();
  }

  /** The gate in front of node {@code i}'s store, to hold its writes back. */
  public GatedStore gate(int node) {
    return gates[node];
  }

  /** Node {@code i}'s wall clock: the system clock, until the test skews it. */
  public SkewedClock clock(int node) {
    return clocks[node];
  }

  public Node node(int node) {
    return nodes[node];
  }

  private Future<Node> startNode(int node) {
    return Node.start(configs.get(node), clocks[node], store -> {
      gates[node] = new GatedStore(store);
      return gates[node];
    });
  }

  private void awaitAllSeeAll() {
    for (Node observer : nodes) {
      if (observer == null) {
        continue;
      }
      for (int i = 0; i < nodes.length; i++) {
        if (nodes[i] != null) {
          NodeUrl seen = url(i);
          Await.until(observer.config().url() + " sees " + seen + " alive", Duration.ofSeconds(60),
              () -> observer.liveNodes().isAlive(seen));
        }
      }
    }
  }

  @Override
  public void close() {
    List<Future<Void>> stopping = new ArrayList<>();
    for (Node node : nodes) {
      if (node != null) {
        stopping.add(node.stop());
      }
    }
    stopping.forEach(Await::result);
  }

  /** Ports are picked from here up to the kernel's ephemeral range (see {@link #freePorts}). */
  private static final int LOWEST_PORT = 10_000;
  /** Test JVMs that run at once (pom.xml's forks) each pick from a slice of their own. */
  private static final int PORT_SLICES = 4;

  /**
   * Ports free when picked (the topology must be written before any node starts), below the
   * kernel's ephemeral range: a port from that range can be taken, between the pick and the
   * node's bind, as the local port of any outgoing connection of this machine (a peer's
   * Hazelcast or HTTP client), which failed starts with "address already in use". Each
   * {@linkplain TestTier#fork fork} picks from its own slice of that span, so that two test JVMs
   * running at once never pick the same free port in the moment before either binds it.
   */
  public static List<Integer> freePorts(int count) {
    int slice = (ephemeralRangeStart() - LOWEST_PORT) / PORT_SLICES;
    int lowest = LOWEST_PORT + (TestTier.fork() - 1) % PORT_SLICES * slice;
    List<Integer> ports = new ArrayList<>();
    for (int attempt = 0; ports.size() < count && attempt < 1_000; attempt++) {
      int port = lowest + ThreadLocalRandom.current().nextInt(slice);
      if (!ports.contains(port) && canBind(port)) {
        ports.add(port);
      }
    }
    if (ports.size() < count) {
      throw new AssertionError("no " + count + " free ports between " + lowest + " and " + (lowest + slice));
    }
    return ports;
  }

  /** The first port of /proc/sys/net/ipv4/ip_local_port_range (Linux's default where it cannot be read). */
  private static int ephemeralRangeStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      return Math.max(LOWEST_PORT + 1_000, Integer.parseInt(range.split("\\s+")[0]));
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  private static boolean canBind(int port) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
