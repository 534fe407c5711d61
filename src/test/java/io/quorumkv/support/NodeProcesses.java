package io.quorumkv.support;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Node processes clustered on loopback, each started from a conf file written here, for tests in
 * which a node ends by itself (it left the cluster) or refuses to start: each run is a
 * {@link NodeProcess} of its own, whose exit status the test reads, and a node can be launched
 * again with the same conf and data without waiting for it to serve.
 */
public final class NodeProcesses implements AutoCloseable {
  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration MEMBERSHIP = Duration.ofSeconds(60);

  private final Path dir;
  private final List<String> urls;
  private final List<Path> confs;
  private final List<NodeProcess> runs = new ArrayList<>();
  private final NodeProcess[] current;
  private final int[] launches;
  /** Kills the nodes if the test JVM exits (an interrupted run) before {@link #close}. */
  private final Thread killOnExit = new Thread(this::killAll, "node-processes-cleanup");

  private NodeProcesses(Path dir, List<String> urls, List<Path> confs) {
    this.dir = dir;
    this.urls = urls;
    this.confs = confs;
    this.current = new NodeProcess[urls.size()];
    this.launches = new int[urls.size()];
  }

  /**
   * Writes {@code size} conf files under {@code dir} (free ports, a cluster name of their own,
   * {@code extra} merged into each), starts every node and waits until each sees all alive.
   */
  public static NodeProcesses start(int size, Path dir, JsonObject extra) throws IOException {
    List<Integer> ports = TestCluster.freePorts(2 * size);
    JsonArray cluster = new JsonArray();
    JsonArray members = new JsonArray();
    for (int i = 0; i < size; i++) {
      cluster.add("http://127.0.0.1:" + ports.get(i));
      members.add("127.0.0.1:" + ports.get(size + i));
    }
    String clusterName = "node-processes-" + UUID.randomUUID();
    List<Path> confs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      JsonObject json = new JsonObject()
          .put("url", cluster.getString(i))
          .put("cluster", cluster)
          .put("dataDir", NodeProcess.jsonPath(dir.resolve("node-" + i)))
          .put("eventLoops", 1)
          .put("storage", new JsonObject().put("workers", 2))
          .put("hazelcast", new JsonObject().put("port", ports.get(size + i)).put("members", members)
              .put("clusterName", clusterName))
          .mergeIn(extra, true);
      confs.add(NodeProcess.writeConf(dir, "node-" + i + ".json", json.encodePrettily()));
    }
    NodeProcesses nodes = new NodeProcesses(dir, cluster.stream().map(Object::toString).toList(), confs);
    Runtime.getRuntime().addShutdownHook(nodes.killOnExit);
    try {
      for (int i = 0; i < size; i++) {
        nodes.launch(i);
      }
      for (int i = 0; i < size; i++) {
        nodes.current[i].awaitReady(START);
      }
      for (int observer = 0; observer < size; observer++) {
        for (int seen = 0; seen < size; seen++) {
          nodes.awaitSeen(observer, seen, true);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      nodes.close();
      throw e;
    }
    return nodes;
  }

  /** Starts the node again with the same conf and data, not waiting for anything: its new run. */
  public NodeProcess launch(int node) throws IOException {
    if (current[node] != null && current[node].isAlive()) {
      throw new IllegalStateException("node " + node + " is still running");
    }
    Path log = dir.resolve("node-" + node + "-run-" + (launches[node]++) + ".log");
    current[node] = NodeProcess.launchWithConfig(confs.get(node), log);
    runs.add(current[node]);
    return current[node];
  }

  /** The node's current (or last) run. */
  public NodeProcess process(int node) {
    return current[node];
  }

  public int size() {
    return urls.size();
  }

  public String url(int node) {
    return urls.get(node);
  }

  public Http http(int node) {
    return new Http(url(node));
  }

  /** {@code kill -9}. */
  public void kill(int node) throws InterruptedException {
    current[node].kill();
  }

  /** {@code GET /v0/cluster} of the node. */
  public JsonObject clusterInfo(int node) {
    HttpResponse<byte[]> response = http(node).get("/v0/cluster");
    if (response.statusCode() != 200) {
      throw new AssertionError("GET /v0/cluster on " + url(node) + " answered " + response.statusCode() + ": "
          + Http.text(response));
    }
    return new JsonObject(Http.text(response));
  }

  /** What {@code observer}'s membership says of every node of its topology, by url. */
  public Map<String, Boolean> aliveAsSeenBy(int observer) {
    Map<String, Boolean> alive = new HashMap<>();
    for (Object node : clusterInfo(observer).getJsonArray("nodes")) {
      JsonObject entry = (JsonObject) node;
      alive.put(entry.getString("url"), entry.getBoolean("alive"));
    }
    return alive;
  }

  /** Waits until {@code observer} sees {@code seen} alive (or down). */
  public void awaitSeen(int observer, int seen, boolean alive) {
    Await.until(url(observer) + " sees " + url(seen) + (alive ? " alive" : " down"), MEMBERSHIP,
        () -> Boolean.valueOf(alive).equals(aliveAsSeenBy(observer).get(url(seen))),
        () -> "it sees " + aliveAsSeenBy(observer));
  }

  private void killAll() {
    for (NodeProcess run : runs) {
      run.close();
    }
  }

  @Override
  public void close() {
    killAll();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException alreadyExiting) {
      // The hook runs or ran.
    }
  }
}
