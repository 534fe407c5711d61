package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.FakeClock;
import io.quorumkv.support.Firewall;
import io.quorumkv.support.HomeSets;
import io.quorumkv.support.Http;
import io.quorumkv.support.LastWriteWinsChecker.Finding;
import io.quorumkv.support.LastWriteWinsChecker.Read;
import io.quorumkv.support.LastWriteWinsChecker.Violation;
import io.quorumkv.support.LastWriteWinsChecker;
import io.quorumkv.support.Nemesis;
import io.quorumkv.support.NodeRecords;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RecordingWriters;
import io.quorumkv.support.Soak;
import io.quorumkv.support.Write;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three nodes as processes to begin with, each on a loopback address and (with skews) a fake clock
 * of its own, written to through every member at the default quorum with PUTs and DELETEs of a few
 * hundred keys at a time (a window that slides on, so that every moment of the run leaves keys
 * whose last write is checked), while a {@link Nemesis} kills and restarts nodes, pauses them,
 * partitions them (iptables), restarts a node the moment a partition heals (so that it joins while
 * Hazelcast merges the two sides, which refuses new members for a while: the node must retry, not
 * exit), moves their clocks by up to 3 s, and changes the topology: a new node joins, a member
 * leaves, a member is killed and removed (3 to 5 members; faults go on while a change streams).
 * Then every fault is healed, the last change let finish and hints drain, and
 * every key is read through every member on its home set under the final topology and judged
 * against its write history ({@link LastWriteWinsChecker}: no acknowledged write lost, no deleted
 * key back, no value nobody wrote); finally the copies on each key's home set must be the same, and
 * no node may have exited after Hazelcast refused its join for the cluster state.
 *
 * <p>A soak ({@link Soak}). In CI ({@code mvn verify}) a short run: one round of the fault schedule, a
 * kill every third step, each other kind once (8 steps), and a topology change at the start of each
 * step that is not a kill (join, leave or removal, join, the other, join), about a minute and a half
 * of faults. At full size ({@code -Dsoak=full}, or {@code scripts/chaos.sh}) ten minutes with a kill
 * every other step, so a change every other step, and a change that does not end fails the run.
 *
 * <p>System properties: {@code chaos.seconds} (faults at least this long, default 0: one round; 600
 * at full size), {@code chaos.killEvery} (default 3; 2 at full size), {@code chaos.changeEvery}
 * (default 1), {@code chaos.seed}
 * (replays a run's schedule), {@code chaos.skew=false} and {@code chaos.partitions=false} (leave
 * those faults out), {@code chaos.faults=KILL,PAUSE,...,RESTART_DURING_HEAL,JOIN,LEAVE,REMOVE} (only
 * these kinds), {@code chaos.rate} (writes per second, default 150), {@code chaos.keys} (keys written at a time,
 * default 300), {@code chaos.changesMustEnd} (a topology change that stalls fails the run too,
 * not only lost or resurrected data; default false, true at full size). Without
 * iptables rights or libfaketime, partitions or skews are left out with a printed note.
 */
@ProcessTier
class ChaosTest {
  private static final int NODES = 3;
  private static final String FAULTS = "KILL,PAUSE,ISOLATE,CUT_LINK,SKEW,RESTART_DURING_HEAL,JOIN,LEAVE,REMOVE";
  /** Unanswered writes at once, at most: a paused node holds its share of 3 s of writes, 150/s over 3 nodes. */
  private static final int MAX_IN_FLIGHT = 1_000;
  private static final double DELETE_SHARE = 0.2;
  /**
   * With 300 keys written at a time and 150 writes/s, a key is written for about 12 s; a minute
   * of faults writes about 1,500 keys, each read through 3 nodes at the end.
   */
  private static final int WRITES_PER_KEY = 6;
  private static final long MAX_SKEW_MS = 3_000;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
  /** Three JVMs starting at once took 51-68 s here while other builds kept the 2 cores busy (load 20-30). */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  private static final Duration CONVERGE = Duration.ofSeconds(120);
  private static final Duration COPIES_AGREE = Duration.ofSeconds(60);
  private static final Duration READ_RETRIES_FOR = Duration.ofSeconds(60);
  /**
   * A guard against a hung run, not its expected length: beyond the faults' own duration, a round
   * of steps (each bounded by a restart's and membership's timeouts), cluster start, healing,
   * convergence and the checks.
   */
  private static final Duration OVERHEAD = Duration.ofSeconds(600);
  private static final int EXAMPLES = 15;

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  private Firewall firewall;
  private RecordingWriters writers;
  private Nemesis nemesis;
  /** Reads and compares keys in parallel: one at a time, 900 reads took 15-17 s on this 2-core machine. */
  private final ExecutorService checkers = Executors.newFixedThreadPool(8);
  private final AtomicLong retriedReads = new AtomicLong();

  @AfterEach
  void cleanUp() throws InterruptedException {
    checkers.shutdownNow();
    if (nemesis != null) {
      nemesis.close();
    }
    try {
      if (writers != null) {
        writers.stop();
      }
    } finally {
      if (firewall != null) {
        firewall.close();
      }
    }
  }

  @Test
  void noAcknowledgedWriteIsLostUnderKillsPausesPartitionsClockSkewsAndTopologyChanges() {
    long seconds = Soak.size("chaos.seconds", 0, 600);
    assertTimeoutPreemptively(Duration.ofSeconds(seconds).plus(OVERHEAD), () -> run(Duration.ofSeconds(seconds)));
  }

  private void run(Duration faults) throws Exception {
    long origin = System.nanoTime();
    long seed = Long.getLong("chaos.seed", new Random().nextLong());
    String partitionsOff = !Boolean.parseBoolean(System.getProperty("chaos.partitions", "true"))
        ? "off (-Dchaos.partitions=false)" : Firewall.unavailableReason();
    String skewsOff = !Boolean.parseBoolean(System.getProperty("chaos.skew", "true"))
        ? "off (-Dchaos.skew=false)"
        : FakeClock.library().isEmpty() ? "libfaketime is not installed (apt-get install faketime)" : null;
    System.out.printf("chaos: seed %d (replay with -Dchaos.seed=%d), %d s of faults%n", seed, seed, faults.toSeconds());
    System.out.println("chaos: partitions " + (partitionsOff == null ? "on" : "skipped: " + partitionsOff));
    System.out.println("chaos: clock skews " + (skewsOff == null ? "on, up to " + MAX_SKEW_MS + " ms either way"
        : "skipped: " + skewsOff));

    ProcessCluster.Options options = new ProcessCluster.Options(NODES)
        .conf(new JsonObject()
            .put("replicaTimeoutMs", 1_000)
            .put("hints", new JsonObject().put("retryMs", 500))
            .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", 3)))
        .ownAddresses(new Random(seed))
        .startTimeout(START_TIMEOUT);
    if (skewsOff == null) {
      options.fakeClocks();
    }
    long starting = System.nanoTime();
    cluster = clusters.start(options);
    long startMillis = (System.nanoTime() - starting) / 1_000_000;
    System.out.printf("chaos: %d nodes at %s serving after %d ms%n", NODES, cluster.urls(), startMillis);
    if (partitionsOff == null) {
      firewall = Firewall.open();
      System.out.println("chaos: iptables rules tagged " + firewall.tag());
    }

    try {
      exercise(faults, origin, seed, startMillis, skewsOff == null);
    } catch (Throwable failure) {
      keepLogs(seed);
      throw failure;
    }
  }

  /** Copies the nodes' logs where the build keeps its output, so that a failed run can be looked into. */
  private void keepLogs(long seed) throws IOException {
    Path kept = Path.of("target", "chaos-logs", "seed-" + seed);
    Files.createDirectories(kept);
    for (int node = 0; node < cluster.size(); node++) {
      Files.writeString(kept.resolve("node-" + node + ".log"), cluster.log(node));
    }
    System.out.println("chaos: node logs kept in " + kept.toAbsolutePath());
  }

  private void exercise(Duration faults, long origin, long seed, long startMillis, boolean skews) throws Exception {
    int rate = Integer.getInteger("chaos.rate", 150);
    int keysAtATime = Integer.getInteger("chaos.keys", 300);
    writers = new RecordingWriters(cluster.urls(), new RecordingWriters.Settings(
        keysAtATime, WRITES_PER_KEY, DELETE_SHARE, rate, MAX_IN_FLIGHT, REQUEST_TIMEOUT, seed));
    Set<Nemesis.Fault> kinds = EnumSet.noneOf(Nemesis.Fault.class);
    for (String kind : System.getProperty("chaos.faults", FAULTS).split(",")) {
      kinds.add(Nemesis.Fault.valueOf(kind.trim()));
    }
    if (firewall == null) {
      kinds.removeIf(Nemesis.Fault::partitions);
    }
    if (!skews) {
      kinds.remove(Nemesis.Fault.SKEW);
    }
    System.out.println("chaos: faults " + kinds);
    nemesis = new Nemesis(cluster, firewall, writers, new Nemesis.Settings(kinds, Soak.size("chaos.killEvery", 3, 2),
        Integer.getInteger("chaos.changeEvery", 1), MAX_SKEW_MS, seed), origin, System.out);
    writers.start();
    long faultsStarted = System.nanoTime();
    nemesis.run(faults);
    writers.stop();
    long faultsEnded = System.nanoTime();
    nemesis.healAll();
    long healed = System.nanoTime();
    List<Integer> members = cluster.members();
    Await.until("every member has delivered its hints to the members", CONVERGE,
        () -> hintsPending(members, true) == 0, () -> "hints pending, by holder: " + members.stream()
            .map(node -> node + "=" + cluster.pendingHintsByTarget(node)).toList());
    long converged = System.nanoTime();

    List<Write> history = writers.history();
    Set<String> written = history.stream().map(Write::key).collect(Collectors.toCollection(TreeSet::new));
    FinalPlacement placement = new FinalPlacement(members);
    Map<Integer, Map<String, NodeRecords.Held>> held = placement.scan();
    // Home sets are those of a final topology only once the last change is over; the reads judge
    // the writes either way.
    boolean settled = nemesis.topologySettled();
    // Before the reads, whose read repair fixes what hints did not: what healing alone left.
    int differedBeforeReads = settled ? placement.differing(written, held).size() : -1;
    Map<String, Integer> homeSizes = placement.homeSizes(written, held);
    List<Read> reads = readEveryKeyThroughEveryMember(homeSizes, members);
    LastWriteWinsChecker.Result verdict = new LastWriteWinsChecker(history).check(reads);
    long readsDone = System.nanoTime();
    Set<String> divergent = settled ? awaitIdenticalCopies(written, placement) : Set.of();
    long copiesChecked = System.nanoTime();

    Map<Write.Outcome, Long> outcomes = history.stream().collect(Collectors.groupingBy(Write::outcome, Collectors.counting()));
    Report report = new Report();
    report.line("seed %d, %d s of faults, %d writes/s sent (open loop, %d skipped with %d unanswered) to %d keys,"
        + " %d at a time", seed, faults.toSeconds(), rate, writers.skipped(), MAX_IN_FLIGHT, written.size(),
        keysAtATime);
    report.line("writes: %d acknowledged, %d failed, %d unknown (not acknowledged, by cause: %s); %d PUT, %d DELETE",
        outcomes.getOrDefault(Write.Outcome.ACKNOWLEDGED, 0L), outcomes.getOrDefault(Write.Outcome.FAILED, 0L),
        outcomes.getOrDefault(Write.Outcome.UNKNOWN, 0L), writers.failuresByCause(),
        history.stream().filter(w -> w.kind() == Write.Kind.PUT).count(),
        history.stream().filter(w -> w.kind() == Write.Kind.DELETE).count());
    report.line("faults injected in %d steps over %d s: %s; restarts served after %s ms", nemesis.steps().size(),
        (faultsEnded - faultsStarted) / 1_000_000_000, nemesis.injected(), nemesis.restartMillis());
    report.line("topology changes: %d; final members %s (nodes %s); keys by the size of their home set, read at"
        + " ack=from=that size: %s", nemesis.changes().size(), cluster.memberUrls(), members,
        new TreeMap<>(homeSizes.values().stream().collect(Collectors.groupingBy(size -> size, Collectors.counting()))));
    nemesis.changes().forEach(change -> report.line("  %s", change));
    report.line("changes the schedule called for but not made: %d; changes that broke the product's promises (not"
        + " made, not over once every fault was undone, a node that left and did not exit 0 by itself): %d",
        nemesis.changesNotMade().size(), nemesis.changeProblems().size());
    nemesis.changeProblems().forEach(problem -> report.line("  %s", problem));
    report.line("steps after which membership took over a minute to see every node again: %d", nemesis.slowHeals());
    report.line("restarts that exited before serving and were started again: %d %s", nemesis.failedStarts().size(),
        nemesis.failedStarts());
    report.line("of which refused by Hazelcast for its cluster state (FROZEN exits; the node should retry instead): %d %s",
        nemesis.frozenExits().size(), nemesis.frozenExits());
    report.line("Hazelcast merges after a split: %d, by the node leading its side's merge %s; joins Hazelcast refused"
        + " for its cluster state and the node retried: %d, by node %s", sum(nemesis.merges()), nemesis.merges(),
        sum(nemesis.joinRetries()), nemesis.joinRetries());
    report.line("cluster start %d ms; healing (the wait for the last change to be over included) %d ms; hints delivered %d ms after the heal; %d reads (%d asked again"
            + " after a 504) took %d ms; replica copies compared in %d ms", startMillis, (healed - faultsEnded) / 1_000_000,
        (converged - healed) / 1_000_000, reads.size(), retriedReads.get(), (readsDone - converged) / 1_000_000,
        (copiesChecked - readsDone) / 1_000_000);
    report.line("converged %d ms after the last fault was undone (membership whole and the last change waited for"
        + " after %d ms, every hint delivered after %d ms)", (converged - faultsEnded) / 1_000_000, (healed - faultsEnded) / 1_000_000,
        (converged - faultsEnded) / 1_000_000);
    report.line("keys whose copies on their home set differed after convergence, before the reads repaired them: %s",
        settled ? differedBeforeReads : "not compared, the last change is not over");
    report.line("hints the members still hold for nodes that left or were removed (kept until hints.windowMs): %d",
        hintsPending(members, false));
    report.line("writes lost: %d keys", verdict.keys(Violation.LOST).size());
    report.line("keys resurrected: %d", verdict.keys(Violation.RESURRECTED).size());
    report.line("values nobody wrote: %d keys; unreadable: %d keys", verdict.keys(Violation.PHANTOM).size(),
        verdict.keys(Violation.UNREADABLE).size());
    report.line("reads explained only by a write that failed before the last acknowledged one started (allowed): %d",
        verdict.lateWins());
    report.line("keys whose copies on their home set still differ %d s after the reads: %s %s", COPIES_AGREE.toSeconds(),
        settled ? divergent.size() : "not compared, the last change is not over", divergent.stream().limit(EXAMPLES).toList());
    report.line("whole run %d s", (System.nanoTime() - origin) / 1_000_000_000);
    List<Finding> findings = verdict.findings();
    report.line("keys lost or resurrected by the step during which their last acknowledged write started: %s",
        byStep(findings, nemesis.steps(), origin));
    // One example per key: the reads of a key through the three nodes mostly tell the same story.
    Map<String, Finding> firstPerKey = new LinkedHashMap<>();
    findings.forEach(finding -> firstPerKey.putIfAbsent(finding.read().key(), finding));
    firstPerKey.values().stream().limit(EXAMPLES).forEach(finding -> report.line("  %s", finding.describe(origin)));
    System.out.print(report);
    // A change that stalls breaks no data promise, and one in a few dozen still does (a node whose
    // Hazelcast calls keep timing out after a restart amid clock jumps, issue 42): the one-round
    // run of CI reports it and fails on data alone; the full size fails on both.
    boolean changesMustEnd = Boolean.parseBoolean(System.getProperty("chaos.changesMustEnd",
        Boolean.toString(Soak.isFull())));
    if (!findings.isEmpty() || !divergent.isEmpty() || !nemesis.frozenExits().isEmpty()
        || changesMustEnd && !nemesis.changeProblems().isEmpty()) {
      fail("chaos run with seed " + seed + " broke the store's promises:\n" + report);
    }
    if (!nemesis.changeProblems().isEmpty()) {
      System.out.println("chaos: a topology change stalled (reported above); not failing the run: -Dchaos.changesMustEnd=false");
    }
  }

  private static long sum(Map<Integer, Long> byNode) {
    return byNode.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Hints the members hold for members ({@code forMembers}) or for nodes no longer members. */
  private long hintsPending(List<Integer> members, boolean forMembers) {
    Set<String> memberUrls = cluster.memberUrls();
    long pending = 0;
    for (int node : members) {
      for (Map.Entry<String, Long> target : cluster.pendingHintsByTarget(node).entrySet()) {
        if (memberUrls.contains(target.getKey()) == forMembers) {
          pending += target.getValue();
        }
      }
    }
    return pending;
  }

  /** Where the broken keys' last acknowledged writes fall in the fault schedule, to see which faults break what. */
  private static Map<String, Integer> byStep(List<Finding> findings, List<Nemesis.Step> steps, long origin) {
    Map<String, Set<String>> keys = new LinkedHashMap<>();
    for (Finding finding : findings) {
      if (finding.latest() == null) {
        continue;
      }
      long start = finding.latest().startNanos();
      String step = steps.stream().filter(s -> s.startNanos() <= start && start <= s.endNanos()).findFirst()
          .map(s -> String.format(Locale.ROOT, "%.0f s %s", (s.startNanos() - origin) / 1e9, s.what()))
          .orElse("between steps");
      keys.computeIfAbsent(step, k -> new TreeSet<>()).add(finding.read().key());
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    keys.forEach((step, broken) -> counts.put(step, broken.size()));
    return counts;
  }

  /**
   * Reads every key through every member at {@code ack=from=} the size of its home set under the
   * final topology (every member when 3 remain): all of its home replicas must answer, and only
   * they are asked. A larger {@code from} would also ask the nodes that held the key before the
   * last change, whose copies stay until their cleanup (~30 s after it), and its read repair would
   * copy such a leftover onto a home set that lost the write.
   */
  private List<Read> readEveryKeyThroughEveryMember(Map<String, Integer> homeSizes, List<Integer> members)
      throws Exception {
    long deadline = System.nanoTime() + READ_RETRIES_FOR.toNanos();
    List<Callable<Read>> reads = new ArrayList<>();
    homeSizes.forEach((key, size) -> {
      for (int node : members) {
        reads.add(() -> read(key, node, size, deadline));
      }
    });
    List<Read> answers = new ArrayList<>();
    for (Future<Read> answer : checkers.invokeAll(reads)) {
      answers.add(answer.get());
    }
    return answers;
  }

  /**
   * Reads at {@code ack=from=replicas}. A 504 is asked again until {@link #READ_RETRIES_FOR}: on two
   * loaded cores a node sometimes misses heartbeats and is taken for dead for a moment, which
   * makes reads unavailable, not wrong; a read still unanswered then is reported as unreadable.
   */
  private Read read(String key, int node, int replicas, long deadline) throws InterruptedException {
    while (true) {
      HttpResponse<byte[]> response = cluster.http(node).get("/v0/entity?id=" + Http.encode(key) + "&ack=" + replicas
          + "&from=" + replicas);
      if (response.statusCode() == 200 || response.statusCode() == 404 || System.nanoTime() > deadline) {
        long version = response.headers().firstValue(ApiHeaders.VERSION).map(Long::parseLong).orElse(-1L);
        return new Read(key, node, response.statusCode(), Http.text(response), version);
      }
      retriedReads.incrementAndGet();
      Thread.sleep(500);
    }
  }

  /** Waits, boundedly, until every key's copies are the same on its whole home set; returns the keys that still differ. */
  private Set<String> awaitIdenticalCopies(Set<String> keys, FinalPlacement placement) throws Exception {
    long deadline = System.nanoTime() + COPIES_AGREE.toNanos();
    Set<String> divergent = new TreeSet<>(keys);
    while (true) {
      divergent = placement.differing(divergent, placement.scan());
      if (divergent.isEmpty() || System.nanoTime() > deadline) {
        return divergent;
      }
      Thread.sleep(500); // between scans of every member's records: repairs land meanwhile
    }
  }

  /**
   * Where the written keys belong under the final topology ({@link HomeSets}), and what each
   * member holds of them ({@link NodeRecords}, read off its internal range in one request).
   * Copies on members outside a key's home set are left alone: the nodes' cleanup drops them
   * ~30 s after a change.
   */
  private final class FinalPlacement {
    private final List<Integer> members;
    private final HomeSets homes;
    private final Map<String, Integer> nodeByUrl = new HashMap<>();

    FinalPlacement(List<Integer> members) {
      this.members = List.copyOf(members);
      members.forEach(node -> nodeByUrl.put(cluster.url(node), node));
      this.homes = new HomeSets(nodeByUrl.keySet());
    }

    /** Every member's records of the written keys, tombstones included, by member. */
    Map<Integer, Map<String, NodeRecords.Held>> scan() throws Exception {
      Map<Integer, Future<Map<String, NodeRecords.Held>>> scans = new LinkedHashMap<>();
      for (int node : members) {
        scans.put(node, checkers.submit(() -> NodeRecords.scan(cluster.http(node), RecordingWriters.KEYS_START,
            RecordingWriters.KEYS_END)));
      }
      Map<Integer, Map<String, NodeRecords.Held>> held = new LinkedHashMap<>();
      for (Map.Entry<Integer, Future<Map<String, NodeRecords.Held>>> scan : scans.entrySet()) {
        held.put(scan.getKey(), scan.getValue().get());
      }
      return held;
    }

    /** The key's home set by node: the widest count its copies hold, every member when none holds it. */
    List<Integer> home(String key, Map<Integer, Map<String, NodeRecords.Held>> held) {
      int widest = HomeSets.widest(key, held.values());
      return homes.of(key, widest == 0 ? members.size() : widest).stream().map(nodeByUrl::get).toList();
    }

    Map<String, Integer> homeSizes(Set<String> keys, Map<Integer, Map<String, NodeRecords.Held>> held) {
      Map<String, Integer> sizes = new TreeMap<>();
      keys.forEach(key -> sizes.put(key, home(key, held).size()));
      return sizes;
    }

    /** The keys whose copies (version, tombstone, value; none) are not the same on every node of their home set. */
    Set<String> differing(Set<String> keys, Map<Integer, Map<String, NodeRecords.Held>> held) {
      Set<String> differing = new TreeSet<>();
      for (String key : keys) {
        List<Integer> home = home(key, held);
        NodeRecords.Held first = held.get(home.get(0)).get(key);
        for (int node : home.subList(1, home.size())) {
          if (!sameRecord(first, held.get(node).get(key))) {
            differing.add(key);
            break;
          }
        }
      }
      return differing;
    }

    private static boolean sameRecord(NodeRecords.Held a, NodeRecords.Held b) {
      return a == null || b == null ? a == b
          : a.version() == b.version() && a.tombstone() == b.tombstone() && Objects.equals(a.value(), b.value());
    }
  }

  /** The lines printed at the end of a run, each prefixed so they stand out in the build log. */
  private static final class Report {
    private final StringBuilder text = new StringBuilder();

    void line(String format, Object... args) {
      text.append("chaos report: ").append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    @Override
    public String toString() {
      return text.toString();
    }
  }
}
