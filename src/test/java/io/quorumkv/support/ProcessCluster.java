package io.quorumkv.support;

import io.quorumkv.config.AdmissionConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * N nodes as real subprocess JVMs ({@link NodeProcess}), clustered through Hazelcast on loopback
 * under a cluster name of their own, each with its conf file, data directory and log under one
 * test directory. A node can be killed ({@code kill -9}), stopped and continued
 * ({@code SIGSTOP}/{@code SIGCONT}) and started again with the same conf and data. A node can be
 * added to the running cluster ({@link #addNode}) and waited for when it exits by itself. With
 * {@link Options}, each node can have a loopback address of its own (so a {@link Firewall} can
 * partition nodes) and a {@link FakeClock}.
 */
public final class ProcessCluster implements AutoCloseable {
  private final Path dir;
  private final Options options;
  private final String clusterName;
  private final List<String> urls = new ArrayList<>();
  private final List<String> hazelcastAddresses = new ArrayList<>();
  private final List<Path> confs = new ArrayList<>();
  private final List<FakeClock> clocks = new ArrayList<>();
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final List<Integer> launches = new ArrayList<>();
  /** Nodes that left the topology for good: confs written later leave them out. */
  private final Set<Integer> retired = new HashSet<>();
  private final List<Path> logs = new ArrayList<>();
  /** Kills the nodes if the test JVM exits (an interrupted run) before {@link #close}. */
  private final Thread killOnExit = new Thread(this::killAll, "process-cluster-cleanup");

  private ProcessCluster(Path dir, Options options, String clusterName) {
    this.dir = dir;
    this.options = options;
    this.clusterName = clusterName;
  }

  /**
   * Writes {@code size} conf files under {@code dir} (free ports, a random cluster name,
   * {@code extra} merged into each), starts every node and waits until each sees all alive.
   */
  public static ProcessCluster start(int size, Path dir, JsonObject extra) throws IOException {
    return start(new Options(size).conf(extra), dir);
  }

  /** Writes the conf files the options describe under {@code dir}, starts every node and waits until each sees all alive. */
  public static ProcessCluster start(Options options, Path dir) throws IOException {
    int size = options.size;
    // One pick for both lists: two separate picks could hand the same port to HTTP and Hazelcast.
    List<Integer> ports = TestCluster.freePorts(2 * size);
    ProcessCluster processes = new ProcessCluster(dir, options, "proc-test-" + UUID.randomUUID());
    for (int i = 0; i < size; i++) {
      processes.urls.add(options.scheme() + options.host(i) + ":" + ports.get(i));
      processes.hazelcastAddresses.add(options.host(i) + ":" + ports.get(size + i));
    }
    for (int i = 0; i < size; i++) {
      processes.writeConf(i, processes.urls, processes.hazelcastAddresses, ports.get(size + i),
          options.nodeConfs.getOrDefault(i, new JsonObject()));
    }
    Runtime.getRuntime().addShutdownHook(processes.killOnExit);
    try {
      for (int i = 0; i < size; i++) {
        processes.launch(i);
      }
      for (int i = 0; i < size; i++) {
        processes.nodes.get(i).awaitReady(options.startTimeout);
      }
      processes.awaitAllSeeAll();
    } catch (RuntimeException | Error e) {
      processes.close();
      throw e;
    }
    return processes;
  }

  /**
   * Writes node {@code index}'s conf: {@code cluster} and {@code hazelcast.members} as given, its
   * own data directory, the options' conf keys and then {@code override} merged in; a fake clock
   * for it if the cluster runs on fake clocks.
   */
  private void writeConf(int index, List<String> cluster, List<String> members, int hazelcastPort, JsonObject override)
      throws IOException {
    JsonObject json = new JsonObject()
        .put("url", urls.get(index))
        .put("cluster", new JsonArray(new ArrayList<>(cluster)))
        .put("dataDir", NodeProcess.jsonPath(dir.resolve("node-" + index)))
        .put("eventLoops", 1)
        // One loop to spare the test machine's cores, with the in-flight bound of a 2-core node.
        .put("admission", new JsonObject().put("maxRequestsPerLoop", 2 * AdmissionConfig.DEFAULT_MAX_REQUESTS_PER_LOOP))
        .put("storage", new JsonObject().put("workers", 2))
        .put("hazelcast", new JsonObject().put("port", hazelcastPort).put("members", new JsonArray(new ArrayList<>(members)))
            .put("clusterName", clusterName))
        .mergeIn(options.extra, true)
        .mergeIn(override, true);
    if (options.certificates != null) {
      json.put("tls", options.certificates.tlsConf(options.host(index)).mergeIn(json.getJsonObject("tls", new JsonObject())));
    }
    confs.add(NodeProcess.writeConf(dir, "node-" + index + ".json", json.encodePrettily()));
    FakeClock clock = null;
    if (options.fakeClocks) {
      clock = FakeClock.create(dir.resolve("node-" + index + ".faketime"));
      clock.setOffsetMillis(options.clockOffsets.getOrDefault(index, 0L));
    }
    clocks.add(clock);
    nodes.add(null);
    launches.add(0);
  }

  /**
   * Adds a node the way an operator adds one to a running cluster: writes its conf ({@code cluster}
   * = the current members, those not {@link #retire retired}, and itself; {@code hazelcast.members}
   * reaching them; free ports; the same cluster name and conf keys, then {@code override} merged in),
   * starts it and waits until it serves. Whether it becomes a member is for the caller to watch.
   *
   * @return the new node's index
   */
  public int addNode(JsonObject override) throws IOException {
    int node = launchNewNode(override);
    nodes.get(node).awaitReady(options.startTimeout);
    return node;
  }

  /** {@link #addNode(JsonObject)} without waiting for it to serve (it may be meant to refuse to start). */
  public int launchNewNode(JsonObject override) throws IOException {
    int node = urls.size();
    List<Integer> ports = TestCluster.freePorts(2);
    List<String> cluster = new ArrayList<>();
    List<String> members = new ArrayList<>();
    for (int current : members()) {
      cluster.add(urls.get(current));
      members.add(hazelcastAddresses.get(current));
    }
    urls.add(options.scheme() + options.host(node) + ":" + ports.get(0));
    hazelcastAddresses.add(options.host(node) + ":" + ports.get(1));
    cluster.add(urls.get(node));
    members.add(hazelcastAddresses.get(node));
    writeConf(node, cluster, members, ports.get(1), override);
    launch(node);
    return node;
  }

  /** Marks the node as gone from the topology for good (it left or was removed): later confs leave it out. */
  public void retire(int node) {
    retired.add(node);
  }

  /** The nodes that belong to the cluster as far as this class knows: every node not {@link #retire retired}. */
  public List<Integer> members() {
    List<Integer> members = new ArrayList<>();
    for (int node = 0; node < urls.size(); node++) {
      if (!retired.contains(node)) {
        members.add(node);
      }
    }
    return members;
  }

  /** The {@link #members} by url, sorted. */
  public Set<String> memberUrls() {
    Set<String> memberUrls = new TreeSet<>();
    members().forEach(node -> memberUrls.add(url(node)));
    return memberUrls;
  }

  /** What the node's {@code GET /v0/cluster} says of the topology; null while it does not answer (starting, killed). */
  public TopologyView topology(int node) {
    if (!running(node)) {
      return null;
    }
    try {
      return TopologyView.fetch(http(node));
    } catch (AssertionError unanswered) {
      return null;
    }
  }

  /**
   * Whether every member answers, at one epoch, that the topology is {@code stable} with exactly
   * the {@link #members}, each {@code normal}: no change in progress, the last one applied everywhere.
   */
  public boolean stableEverywhere() {
    return stableEverywhere(memberUrls(), this::httpOf);
  }

  /** {@link #stableEverywhere()} for these members, asked by url only: safe from any thread. */
  public static boolean stableEverywhere(Set<String> members) {
    return stableEverywhere(members, Http::new);
  }

  private static boolean stableEverywhere(Set<String> members, Function<String, Http> clients) {
    Set<Long> epochs = new HashSet<>();
    for (String url : members) {
      TopologyView view;
      try {
        view = TopologyView.fetch(clients.apply(url));
      } catch (AssertionError unanswered) {
        return false;
      }
      if (!view.stableWith(members)) {
        return false;
      }
      epochs.add(view.epoch());
    }
    return epochs.size() == 1;
  }

  /** What every member says of the topology, for a message. */
  public String topologyViews() {
    StringBuilder all = new StringBuilder();
    for (int node : members()) {
      TopologyView view = topology(node);
      all.append(all.isEmpty() ? "" : "; ").append("node ").append(node).append(": ")
          .append(view == null ? "no answer" : view.describe());
    }
    return all.toString();
  }

  /** Waits at most {@code timeout} for the node's process to exit by itself and returns its exit status. */
  public int awaitExit(int node, Duration timeout) throws InterruptedException {
    return nodes.get(node).awaitExit(timeout);
  }

  /** How to start a cluster: its size, conf keys for every node, each node's address, real or fake clocks. */
  public static final class Options {
    private final int size;
    private JsonObject extra = new JsonObject();
    /** "127.x.y." when every node has an address of its own, else null (all on 127.0.0.1). */
    private String ownAddressPrefix;
    private boolean fakeClocks;
    private final Map<Integer, Long> clockOffsets = new HashMap<>();
    private final Map<Integer, JsonObject> nodeConfs = new HashMap<>();
    private Duration startTimeout = Duration.ofSeconds(60);
    private List<String> jvmOptions = List.of();
    private TestCertificates certificates;
    private String token;

    /** {@code size} nodes, all on 127.0.0.1, on the real clock. */
    public Options(int size) {
      this.size = size;
    }

    /** Node {@code node}'s address, for the nodes started first and those added later alike. */
    private String host(int node) {
      return ownAddressPrefix == null ? "127.0.0.1" : ownAddressPrefix + (node + 1);
    }

    /** Conf keys merged into every node's conf. */
    public Options conf(JsonObject extra) {
      this.extra = extra;
      return this;
    }

    /**
     * Every node on a loopback address of its own, for its HTTP server, its Hazelcast member and
     * the connections it opens, so that a firewall rule can cut one pair of nodes. Not 127.0.0.1,
     * which connections bound to no address (this test's own clients among them) come from; the
     * two middle bytes are random, so that two such clusters on one machine never share an address.
     */
    public Options ownAddresses(Random random) {
      int second = 1 + random.nextInt(254);
      int third = random.nextInt(256);
      this.ownAddressPrefix = "127." + second + "." + third + ".";
      return this;
    }

    /** Conf keys merged into node {@code node}'s conf only, after those of {@link #conf}. */
    public Options nodeConf(int node, JsonObject override) {
      nodeConfs.put(node, override);
      return this;
    }

    /** How long a node may take from its launch until it serves (at the start and at every restart). */
    public Options startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    /** JVM options for every node, after the default ones (so {@code -Xmx96m} sets a smaller heap). */
    public Options jvmOptions(String... options) {
      this.jvmOptions = List.of(options);
      return this;
    }

    /** Every node on https, with a certificate from {@code certificates}' cluster CA (mutual TLS between nodes). */
    public Options tls(TestCertificates certificates) {
      this.certificates = certificates;
      return this;
    }

    /** The API token this class's own requests carry, for nodes whose conf sets tokens: one of role admin sees all. */
    public Options token(String token) {
      this.token = token;
      return this;
    }

    private String scheme() {
      return certificates == null ? "http://" : "https://";
    }

    /** Every node on a {@link FakeClock} of its own, at offset 0 until the test moves it. */
    public Options fakeClocks() {
      this.fakeClocks = true;
      return this;
    }

    /** Node {@code node}'s fake clock starts {@code millis} off the real one (so no wait for it to follow). */
    public Options clockOffset(int node, long millis) {
      this.fakeClocks = true;
      clockOffsets.put(node, millis);
      return this;
    }
  }

  /** Nodes started so far, {@link #retire retired} ones included: node indices run from 0 to size() - 1. */
  public int size() {
    return nodes.size();
  }

  public String url(int node) {
    return urls.get(node);
  }

  public List<String> urls() {
    return List.copyOf(urls);
  }

  /** The Hazelcast cluster name every node of this cluster has in its conf. */
  public String clusterName() {
    return clusterName;
  }

  /** The {@code host:port} of the {@link #members}' Hazelcast members, as the confs of new nodes list them. */
  public List<String> hazelcastMembers() {
    return members().stream().map(hazelcastAddresses::get).toList();
  }

  /** The address the node listens on and opens its connections from. */
  public String host(int node) {
    return options.host(node);
  }

  /** The node's wall clock; only for a cluster started with {@link Options#fakeClocks()}. */
  public FakeClock clock(int node) {
    if (clocks.get(node) == null) {
      throw new IllegalStateException("the cluster runs on the real clock");
    }
    return clocks.get(node);
  }

  public boolean hasFakeClocks() {
    return !clocks.isEmpty() && clocks.get(0) != null;
  }

  public Http http(int node) {
    return httpOf(url(node));
  }

  /** A client of this node's url: under TLS one that trusts the cluster's CA. */
  private Http httpOf(String url) {
    Http http = options.certificates == null ? new Http(url) : new Http(url, options.certificates.client());
    return options.token == null ? http : http.withToken(options.token);
  }

  public boolean running(int node) {
    return nodes.get(node) != null && nodes.get(node).isAlive();
  }

  public long pid(int node) {
    return nodes.get(node).pid();
  }

  /** SIGTERM: the node finishes the requests it has in flight, then exits. */
  public void stop(int node) throws InterruptedException {
    nodes.get(node).terminate();
  }

  /** {@code kill -9}: no shutdown hook, no flush. */
  public void kill(int node) throws InterruptedException {
    nodes.get(node).kill();
  }

  /** Starts the node again with the same conf and data and waits until every node sees every node alive. */
  public void restart(int node) throws IOException {
    startAgain(node);
    awaitAllSeeAll();
  }

  /** Starts the node again with the same conf and data and waits until it serves (not for membership). */
  public void startAgain(int node) throws IOException {
    launchAgain(node);
    nodes.get(node).awaitReady(options.startTimeout);
  }

  /** Starts the node again with the same conf and data, without waiting for it to serve ({@link #awaitServing}). */
  public void launchAgain(int node) throws IOException {
    if (running(node)) {
      throw new IllegalStateException("node " + node + " is still running");
    }
    launch(node);
  }

  /** Waits until a node just launched ({@link #launchNewNode}) serves; an AssertionError if it exits first. */
  public void awaitServing(int node) {
    nodes.get(node).awaitReady(options.startTimeout);
  }

  /** The node's data directory, which this cluster created. */
  public Path dataDir(int node) {
    return dir.resolve("node-" + node);
  }

  /** Deletes the node's data directory (one this cluster created), as a lost disk would; the node must be down. */
  public void wipeData(int node) throws IOException {
    if (running(node)) {
      throw new IllegalStateException("node " + node + " is still running");
    }
    TestFiles.deleteTree(dir.resolve("node-" + node));
  }

  /** {@code kill -STOP}: the process freezes with its sockets open, as a node in a long GC pause would. */
  public void suspend(int node) throws IOException, InterruptedException {
    signal(node, "STOP");
  }

  /** {@code kill -CONT}. */
  public void resume(int node) throws IOException, InterruptedException {
    signal(node, "CONT");
  }

  private void signal(int node, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid(node))).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + signal + " " + pid(node) + " failed");
    }
  }

  /** What {@code observer}'s membership says of every node, by url. */
  public Map<String, Boolean> aliveAsSeenBy(int observer) {
    JsonObject cluster = clusterInfo(observer);
    Map<String, Boolean> alive = new java.util.HashMap<>();
    for (Object node : cluster.getJsonArray("nodes")) {
      JsonObject entry = (JsonObject) node;
      alive.put(entry.getString("url"), entry.getBoolean("alive"));
    }
    return alive;
  }

  /** {@code GET /v0/cluster} of the node. */
  public JsonObject clusterInfo(int node) {
    HttpResponse<byte[]> response = http(node).get("/v0/cluster");
    if (response.statusCode() != 200) {
      throw new AssertionError("GET /v0/cluster on " + url(node) + " answered " + response.statusCode());
    }
    return new JsonObject(Http.text(response));
  }

  /** Hints this node still holds, all targets together. */
  public long pendingHints(int node) {
    return pendingHintsByTarget(node).values().stream().mapToLong(Long::longValue).sum();
  }

  /** Hints this node still holds, by target url (a node that left or was removed among them). */
  public Map<String, Long> pendingHintsByTarget(int node) {
    JsonObject pending = clusterInfo(node).getJsonObject("hints").getJsonObject("pending");
    Map<String, Long> byTarget = new HashMap<>();
    pending.forEach(entry -> byTarget.put(entry.getKey(), ((Number) entry.getValue()).longValue()));
    return byTarget;
  }

  /** The node's own stored record for the key (null if it holds nothing), read over its internal endpoint. */
  public ReplicaCopy copy(int node, String key) {
    return ReplicaCopy.of(http(node), key);
  }

  /** The log of the node's current (or last) run. */
  public String currentLog(int node) {
    return nodes.get(node).log();
  }

  /** Every log this node has written, all runs together. */
  public String log(int node) {
    StringBuilder all = new StringBuilder();
    for (Path log : logs) {
      if (log.getFileName().toString().startsWith("node-" + node + "-")) {
        try {
          all.append(Files.readString(log, StandardCharsets.UTF_8));
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      }
    }
    return all.toString();
  }

  /**
   * Whether every running member's membership sees every running member alive; a node that does not
   * answer means no. {@link #retire Retired} nodes take no part, whether they still run or not.
   */
  public boolean allSeeAll() {
    List<Integer> members = members();
    for (int observer : members) {
      if (!running(observer)) {
        continue;
      }
      Map<String, Boolean> view;
      try {
        view = aliveAsSeenBy(observer);
      } catch (AssertionError unanswered) {
        return false;
      }
      for (int seen : members) {
        if (running(seen) && !Boolean.TRUE.equals(view.get(url(seen)))) {
          return false;
        }
      }
    }
    return true;
  }

  /** What each member's membership says, for a message. */
  public String membershipViews() {
    StringBuilder views = new StringBuilder();
    for (int observer : members()) {
      views.append(views.isEmpty() ? "" : "; ").append("node ").append(observer).append(": ");
      if (!running(observer)) {
        views.append("not running");
        continue;
      }
      try {
        views.append(aliveAsSeenBy(observer));
      } catch (AssertionError unanswered) {
        views.append("no answer (").append(unanswered.getMessage()).append(')');
      }
    }
    return views.toString();
  }

  /** Waits until every running member's membership sees every running member alive. */
  public void awaitAllSeeAll() {
    List<Integer> members = members();
    for (int observer : members) {
      if (!running(observer)) {
        continue;
      }
      int from = observer;
      for (int seen : members) {
        if (running(seen)) {
          String url = url(seen);
          Await.until(url(from) + " sees " + url + " alive", Duration.ofSeconds(60),
              () -> Boolean.TRUE.equals(aliveAsSeenBy(from).get(url)));
        }
      }
    }
  }

  /** Waits until every other running member's membership sees the node down. */
  public void awaitSeenDown(int node) {
    String url = url(node);
    for (int observer : members()) {
      if (observer != node && running(observer)) {
        int from = observer;
        Await.until(url(from) + " sees " + url + " down", Duration.ofSeconds(60),
            () -> Boolean.FALSE.equals(aliveAsSeenBy(from).get(url)));
      }
    }
  }

  private void launch(int node) throws IOException {
    int run = launches.get(node);
    launches.set(node, run + 1);
    Path log = dir.resolve("node-" + node + "-run-" + run + ".log");
    logs.add(log);
    nodes.set(node, NodeProcess.launchWithConfig(confs.get(node), log, clocks.get(node), options.jvmOptions));
  }

  private void killAll() {
    for (NodeProcess node : nodes) {
      if (node != null) {
        node.close(); // SIGKILL ends a SIGSTOPped process too
      }
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
