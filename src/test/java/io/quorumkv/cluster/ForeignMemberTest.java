package io.quorumkv.cluster;

import com.hazelcast.cluster.ClusterState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 53, items 2 to 4: a Hazelcast member in the test JVM that joins the group of two node
 * processes with a {@code clusterSecret} (it knows the cluster's name and members, not the secret)
 * and does what any member may. Each test fails on a release whose liveness trusts Hazelcast:
 * <ul>
 *   <li>it claims node 1's url (the member attribute older releases took as the claim, a bare url
 *   and node 1's own sealed proof copied under its UUID), then leaves: node 1 stays alive on node 0
 *   past the failure-detection time, and default reads and writes go on through both nodes;</li>
 *   <li>it sets the cluster state to PASSIVE: the nodes set it back to ACTIVE, and a node restarted
 *   afterwards joins;</li>
 *   <li>it shuts the whole group down: each node builds its member again, a node killed afterwards
 *   is seen down, and started again is seen alive.</li>
 * </ul>
 */
@ProcessTier
class ForeignMemberTest {
  private static final String SECRET = "foreign-member-test-secret";
  /** The member attribute releases before issue 53 took as a member's claim to be a node. */
  private static final String OLD_URL_ATTRIBUTE = "quorumkv.url";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  /** Longer than the failure detection's 5 s: a node dropped for the forger's leave would show by then. */
  private static final Duration WATCH = Duration.ofSeconds(10);
  private static final Duration WATCH_STEP = Duration.ofMillis(500);
  /** A loaded 2-core machine stretches the nodes' one-second checks and Hazelcast's joins. */
  private static final Duration UNDONE_WITHIN = Duration.ofSeconds(60);
  /** The documented 5 s of failure detection, with room for a loaded machine. */
  private static final Duration SEEN_DOWN_WITHIN = Duration.ofSeconds(20);
  private static final Pattern DEFENDED = Pattern.compile(
      "^quorumkv_membership_defended_total\\{event=\"([a-z]+)\",?\\} ([0-9.E]+)$", Pattern.MULTILINE);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  private HazelcastInstance foreign;

  @AfterEach
  void cleanUp() {
    if (foreign != null) {
      foreign.getLifecycleService().terminate();
    }
  }

  @Test
  void aMemberThatClaimsANodesUrlAndLeavesTakesNothingDown() {
    assertTimeoutPreemptively(Duration.ofMinutes(5), () -> {
      start();
      foreign = ForeignMember.join(cluster, config -> config.getMemberAttributeConfig()
          .setAttribute(OLD_URL_ATTRIBUTE, cluster.url(1)));
      IMap<String, Object> proofs = foreign.getMap(MemberProofs.MAP);
      String own = foreign.getCluster().getLocalMember().getUuid().toString();
      Object nodeOnesProof = proofOf(proofs, cluster.url(1));
      proofs.put(own, nodeOnesProof);
      proofs.put(UUID.randomUUID().toString(), cluster.url(1));
      foreign.shutdown();
      foreign = null;
      watchServing();
      assertTrue(defended(0, "proof") >= 2, "node 0 counted the forged proofs: " + metrics(0));
    });
  }

  @Test
  void aClusterStateNoNodeSetIsSetBackAndARestartedNodeJoins() {
    assertTimeoutPreemptively(Duration.ofMinutes(5), () -> {
      start();
      foreign = ForeignMember.join(cluster, config -> { });
      AtomicReference<String> refusal = new AtomicReference<>("");
      Await.until("the foreign member sets the cluster state to PASSIVE", UNDONE_WITHIN,
          () -> attempt(() -> foreign.getCluster().changeClusterState(ClusterState.PASSIVE), refusal), refusal::get);
      Await.until("the nodes set the cluster state back to ACTIVE", UNDONE_WITHIN,
          () -> foreign.getCluster().getClusterState() == ClusterState.ACTIVE
              && defended(0, "state") + defended(1, "state") >= 1,
          () -> foreign.getCluster().getClusterState() + "; " + metrics(0));

      cluster.stop(1);
      cluster.restart(1);
      assertReadsAndWrites("after the restart");
    });
  }

  @Test
  void aGroupShutDownByAnotherMemberIsBuiltAgainAndStillDetectsFailures() {
    assertTimeoutPreemptively(Duration.ofMinutes(6), () -> {
      start();
      foreign = ForeignMember.join(cluster, config -> { });
      AtomicReference<String> refusal = new AtomicReference<>("");
      Await.until("the foreign member shuts the group down", UNDONE_WITHIN,
          () -> attempt(() -> foreign.getCluster().shutdown(), refusal), refusal::get);
      foreign = null;
      // Until its member is back, a node keeps the liveness it saw last: wait for both to be back.
      Await.until("each node built its member again and sees the other", UNDONE_WITHIN,
          () -> defended(0, "rebuilt") >= 1 && defended(1, "rebuilt") >= 1 && cluster.allSeeAll(),
          cluster::membershipViews);
      assertReadsAndWrites("after the shutdown");

      cluster.kill(1);
      String one = cluster.url(1);
      Await.until("node 0 sees the killed node 1 down", SEEN_DOWN_WITHIN,
          () -> Boolean.FALSE.equals(cluster.aliveAsSeenBy(0).get(one)), cluster::membershipViews);
      cluster.restart(1);
      assertReadsAndWrites("after node 1 came back");
    });
  }

  private void start() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(2)
        .conf(new JsonObject().put("clusterSecret", SECRET))
        .startTimeout(START_TIMEOUT));
  }

  /** Node 1's proof as the nodes wrote it, found by its url. */
  private static Object proofOf(IMap<String, Object> proofs, String url) {
    AtomicReference<Object> found = new AtomicReference<>();
    Await.until("node 1's proof is on the map", Await.TIMEOUT, () -> {
      for (Map.Entry<String, Object> entry : proofs.entrySet()) {
        if (entry.getValue() instanceof String text && text.contains(" " + url + " ")) {
          found.set(text);
        }
      }
      return found.get() != null;
    });
    assertNotNull(found.get());
    return found.get();
  }

  /**
   * For {@link #WATCH}, node 1 stays alive on node 0 and a default write and read answer through
   * each node: checked over and over, as it is a property of the whole window.
   */
  private void watchServing() throws InterruptedException {
    long end = System.nanoTime() + WATCH.toNanos();
    int round = 0;
    while (System.nanoTime() < end) {
      assertEquals(Boolean.TRUE, cluster.aliveAsSeenBy(0).get(cluster.url(1)), cluster.membershipViews());
      assertReadsAndWrites("round " + round++);
      Thread.sleep(WATCH_STEP.toMillis());
    }
  }

  /** A PUT and a GET at the default quorum through each node. */
  private void assertReadsAndWrites(String when) {
    for (int node = 0; node < 2; node++) {
      String key = "foreign-" + UUID.randomUUID();
      HttpResponse<byte[]> put = cluster.http(node).put("/v0/entity?id=" + key, when);
      assertEquals(201, put.statusCode(), when + ", PUT through node " + node + ": " + Http.text(put));
      HttpResponse<byte[]> get = cluster.http(1 - node).get("/v0/entity?id=" + key);
      assertEquals(200, get.statusCode(), when + ", GET through node " + (1 - node) + ": " + Http.text(get));
      assertEquals(when, Http.text(get));
    }
  }

  /** Runs a Hazelcast call that a member may refuse for a while (migrations after a join). */
  private static boolean attempt(Runnable call, AtomicReference<String> refusal) {
    try {
      call.run();
      return true;
    } catch (RuntimeException refused) {
      refusal.set("last refusal: " + refused);
      return false;
    }
  }

  /** How many times the node defended its membership against {@code event}; 0 before the first. */
  private double defended(int node, String event) {
    Matcher series = DEFENDED.matcher(metrics(node));
    while (series.find()) {
      if (series.group(1).equals(event)) {
        return Double.parseDouble(series.group(2));
      }
    }
    return 0;
  }

  private String metrics(int node) {
    HttpResponse<byte[]> answer = cluster.http(node).get("/metrics");
    assertEquals(200, answer.statusCode(), Http.text(answer));
    return Http.text(answer);
  }
}
