package io.quorumkv.cluster;

import com.hazelcast.cluster.ClusterState;
import com.hazelcast.core.HazelcastInstance;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 42: a node that starts while Hazelcast lets no new member in (cluster state {@code FROZEN})
 * tries again later instead of exiting. The nodes set such a state back to ACTIVE within a second or
 * two (issue 53, {@code ForeignMemberTest}), so here no node is in the group while it is frozen: two
 * node processes, and a Hazelcast member in the test JVM (the nodes' cluster name, member list and
 * settings, but no proof of being a node) that takes node 0's Hazelcast port once node 0 stopped,
 * stays once node 1 stopped too, and freezes the group.
 * A node started again must stay up and log its retries, with no Hazelcast instance of a refused
 * attempt left running beside the next. Once the state is {@code ACTIVE} again it joins, the other
 * node comes back, and a default PUT through one reads back through the other.
 */
@ProcessTier
class FrozenJoinTest {
  /** Three JVMs on 2 cores shared with other builds. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  private static final Duration RETRIES_WITHIN = Duration.ofSeconds(120);
  private static final Duration STATE_CHANGED_WITHIN = Duration.ofSeconds(60);
  private static final Duration JOIN_WITHIN = Duration.ofMinutes(3);
  private static final Duration JCMD_TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern RETRY = Pattern.compile("Hazelcast refused the join \\(cluster state FROZEN");
  /** A thread of a Hazelcast instance: "hz.INSTANCE.what", the instance's name drawn at random when it starts. */
  private static final Pattern HAZELCAST_THREAD = Pattern.compile("^hz\\.([^.]+)\\.");
  private static final Pattern THREAD = Pattern.compile("^\"([^\"]+)\"");
  private static final String EVENT_LOOP = "vert.x-eventloop-thread-";

  /** The nodes' thread dumps (the cluster gets a directory of its own). */
  @TempDir
  Path dir;
  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  private HazelcastInstance freezer;
  private volatile String lastStateChangeFailure = "";
  /** The Hazelcast instances seen running in the joining node, each an attempt refused since. */
  private final Set<String> attemptsSeen = new TreeSet<>();

  @AfterEach
  void cleanUp() {
    if (freezer != null) {
      freezer.getLifecycleService().terminate();
    }
  }

  @Test
  void aNodeRefusedByAFrozenClusterRetriesAndJoinsOnceTheClusterIsActive() {
    assertTimeoutPreemptively(Duration.ofMinutes(10), this::run);
  }

  private void run() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(2).startTimeout(START_TIMEOUT));
    // The freezer takes node 0's place in the member list, then node 1 leaves too: the group is the
    // freezer alone, with the board, where node 1 looks for it, and no node sets its state back.
    cluster.stop(0);
    String nodeZero = cluster.hazelcastMembers().get(0);
    int port = Integer.parseInt(nodeZero.substring(nodeZero.lastIndexOf(':') + 1));
    freezer = ForeignMember.join(cluster, config -> config.getNetworkConfig().setPort(port));
    cluster.stop(1);
    Await.until("the cluster state is FROZEN", STATE_CHANGED_WITHIN, () -> changeState(ClusterState.FROZEN),
        () -> lastStateChangeFailure);

    cluster.launchAgain(1);
    awaitRetries(1, 1);
    assertNothingLeftOfRefusedAttempts(1, 1);
    awaitRetries(1, 3);
    assertNothingLeftOfRefusedAttempts(1, 3);

    Await.until("the cluster state is ACTIVE", STATE_CHANGED_WITHIN, () -> changeState(ClusterState.ACTIVE),
        () -> lastStateChangeFailure);
    cluster.awaitServing(1);
    // What a node that joined runs: one Hazelcast instance, one thread per event loop.
    Threads member = threads(1);
    assertEquals(1, member.hazelcastInstances().size(), "node 1: " + member);
    assertEquals(Map.of(EVENT_LOOP + "0", 1), member.eventLoops(), "node 1: " + member);
    // Gone gracefully (the board moves to node 1), it gives node 0 its port back.
    freezer.shutdown();
    freezer = null;
    cluster.startAgain(0);
    Await.until("every member says the topology is stable with both nodes", JOIN_WITHIN,
        cluster::stableEverywhere, cluster::topologyViews);
    cluster.awaitAllSeeAll();

    HttpResponse<byte[]> put = cluster.http(1).put("/v0/entity?id=frozen-join", "after the freeze");
    assertEquals(201, put.statusCode(), Http.text(put));
    HttpResponse<byte[]> read = cluster.http(0).get("/v0/entity?id=frozen-join");
    assertEquals(200, read.statusCode(), Http.text(read));
    assertEquals("after the freeze", Http.text(read));
  }

  /** Changes the cluster state; false while Hazelcast refuses (migrations still running after the member joined). */
  private boolean changeState(ClusterState state) {
    try {
      freezer.getCluster().changeClusterState(state);
      return true;
    } catch (RuntimeException refused) {
      lastStateChangeFailure = "last refusal: " + refused;
      return false;
    }
  }

  /** Waits until the node has logged {@code count} retries; fails at once if it exits. */
  private void awaitRetries(int node, int count) {
    Await.until("node " + node + " logs " + count + " retries of its join", RETRIES_WITHIN, () -> {
      String log = cluster.currentLog(node);
      if (!cluster.running(node)) {
        fail("node " + node + " exited instead of retrying its join: " + log);
      }
      return RETRY.matcher(log).results().count() >= count;
    }, () -> cluster.currentLog(node));
  }

  /**
   * The refused attempts left nothing running: the node's threads belong to one Hazelcast instance
   * at most (the attempt under way, if any) and none of those seen before (refused since), and no
   * event loop thread is there twice (each Vert.x numbers its own from 0).
   */
  private void assertNothingLeftOfRefusedAttempts(int node, int refused) throws IOException, InterruptedException {
    Threads threads = threads(node);
    System.out.printf("frozen join: node %d after %d refusals: %s%n", node, refused, threads);
    assertTrue(threads.hazelcastInstances().size() <= 1, "threads of several Hazelcast instances: " + threads);
    assertTrue(Collections.disjoint(threads.hazelcastInstances(), attemptsSeen),
        "threads of the Hazelcast instance of a refused attempt: " + threads + "; seen before: " + attemptsSeen);
    threads.eventLoops().forEach((name, count) -> assertEquals(1, count, "event loop threads named " + name));
    attemptsSeen.addAll(threads.hazelcastInstances());
  }

  /** What a node's threads belong to, from their names. */
  private record Threads(int count, Set<String> hazelcastInstances, Map<String, Integer> eventLoops) {
    @Override
    public String toString() {
      return count + " threads, of Hazelcast instances " + hazelcastInstances + ", event loops " + eventLoops;
    }
  }

  private Threads threads(int node) throws IOException, InterruptedException {
    List<String> names = threadNames(cluster.pid(node));
    Set<String> instances = new TreeSet<>();
    Map<String, Integer> eventLoops = new TreeMap<>();
    for (String name : names) {
      Matcher hazelcast = HAZELCAST_THREAD.matcher(name);
      if (hazelcast.find()) {
        instances.add(hazelcast.group(1));
      }
      if (name.startsWith(EVENT_LOOP)) {
        eventLoops.merge(name, 1, Integer::sum);
      }
    }
    return new Threads(names.size(), instances, eventLoops);
  }

  private List<String> threadNames(long pid) throws IOException, InterruptedException {
    Path dump = dir.resolve("threads-" + pid + ".txt");
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid), "Thread.print").redirectErrorStream(true).redirectOutput(dump.toFile()).start();
    if (!jcmd.waitFor(JCMD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || jcmd.exitValue() != 0) {
      jcmd.destroyForcibly();
      fail("jcmd " + pid + " Thread.print failed: " + Files.readString(dump));
    }
    return Files.readAllLines(dump).stream().map(THREAD::matcher).filter(Matcher::find).map(m -> m.group(1)).toList();
  }
}
