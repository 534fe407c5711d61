package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.FakeClock;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReadBack;
import io.quorumkv.support.TopologyView;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 38, the first defect: a joining node whose clock is far behind refuses the records it is
 * sent (their versions are too far ahead of it). Such a transfer must not count as done: the
 * change stays at its streaming step, {@code /v0/cluster} says why, every key still reads back,
 * and once the clock is right again the transfer resumes and the change completes with every
 * key on its new owner. Before the fix, the transfer was marked done with the refused records
 * "left to anti-entropy", the sources dropped their copies at the cleanup, and keys written
 * with {@code from=1} were gone for good.
 *
 * <p>The cutover that follows is checked too: a conditional write of a key whose first replica
 * moves to the joiner is refused ({@code 503} with {@code Retry-After}) until the change is
 * stable, since nodes apply the cutover moments apart and would otherwise send the key's
 * conditional writes to two first replicas at once; a key whose first replica stays takes them.
 */
@ProcessTier
class TransferRefusalTest {
  private static final int KEYS = 300;
  /** Far more than the default maxClockOffsetMs (1 s), and than the time a node takes to start on a loaded machine. */
  private static final long JOINER_BEHIND_MS = 120_000;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration CHANGE = Duration.ofSeconds(90);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;

  @Test
  void aJoinerThatRefusesRecordsHoldsTheChangeUntilItHoldsThemAll() throws Exception {
    assumeTrue(FakeClock.library().isPresent(), "libfaketime is not installed (apt-get install faketime)");
    int joiner = 3;
    cluster = clusters.start(new ProcessCluster.Options(3)
        // A replica timeout of 5 s keeps the cutover step open for over 10 s: time enough to write during it.
        .conf(new JsonObject().put("transfer", new JsonObject().put("recordsPerSecond", 10_000))
            .put("replicaTimeoutMs", 5_000))
        .clockOffset(joiner, -JOINER_BEHIND_MS)
        .startTimeout(START_TIMEOUT));
    Map<String, String> written = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = String.format(Locale.ROOT, "refused-%04d", i);
      String value = "v" + i;
      HttpResponse<byte[]> answer = cluster.http(i % 3).put(ReadBack.single(key), value);
      assertEquals(201, answer.statusCode(), () -> "PUT " + key + ": " + Http.text(answer));
      written.put(key, value);
    }

    assertEquals(joiner, cluster.addNode(new JsonObject()));
    TopologyView stalled = awaitRefusalOrEnd();
    assertEquals("streaming", stalled.stage(), () -> "the join went on although the joiner refused records: "
        + stalled.describe());
    TopologyView.Transfer refused = stalled.transfers().stream().filter(t -> "failed".equals(t.state())).findFirst()
        .orElseThrow();
    assertTrue(refused.lastError().contains("clock") && refused.lastError().contains("NTP"),
        () -> "the reason should send the operator to the joiner's clock: " + refused.lastError());
    for (int node = 0; node < 3; node++) {
      TopologyView view = TopologyView.fetch(cluster.http(node));
      assertEquals("streaming", view.stage(), view::describe);
    }
    ReadBack.assertAll(cluster, written, List.of(0, 1, 2));

    cluster.clock(joiner).setOffsetMillis(0);
    awaitStage("cutover");
    String moving = keyWhoseFirstReplica(true);
    String staying = keyWhoseFirstReplica(false);
    HttpResponse<byte[]> refusedWrite = conditionalPut(moving);
    assertEquals(503, refusedWrite.statusCode(), () -> "a conditional write of a key whose first replica moves, during"
        + " the cutover: " + Http.text(refusedWrite));
    assertEquals("1", refusedWrite.headers().firstValue("Retry-After").orElse(null));
    assertEquals(201, conditionalPut(staying).statusCode(), "a key whose first replica stays is written at the cutover");
    Set<String> members = new TreeSet<>(cluster.urls());
    Await.until("every node sees the join completed", CHANGE,
        () -> cluster.members().stream().allMatch(node -> TopologyView.fetch(cluster.http(node)).stableWith(members)),
        () -> TopologyView.fetch(cluster.http(0)).describe());
    // The sources drop what they no longer replicate a moment after the change: then each key has one copy.
    Await.until("each key has exactly one copy left", CHANGE, () -> written.keySet().stream()
        .allMatch(key -> copies(key) == 1), () -> "copies of the first key: " + copies(written.keySet().iterator().next()));
    ReadBack.assertAll(cluster, written, cluster.members());
    assertEquals(201, conditionalPut(moving).statusCode(), "once the change is stable, the new first replica takes it");
    assertTrue(cluster.log(joiner).contains("fix the clock"),
        "the joiner's log says why its transfers failed");
  }

  /** Polls until a transfer to the joiner failed, or the change is over; returns what node 0 saw then. */
  private TopologyView awaitRefusalOrEnd() {
    TopologyView[] seen = new TopologyView[1];
    Await.until("a transfer fails, or the join ends", CHANGE, () -> {
      seen[0] = TopologyView.fetch(cluster.http(0));
      return "stable".equals(seen[0].stage())
          || seen[0].transfers().stream().anyMatch(t -> "failed".equals(t.state()) && t.lastError() != null);
    }, () -> seen[0] == null ? "no answer" : seen[0].describe());
    return seen[0];
  }

  /**
   * Waits until node 0 is at the change's {@code stage} and sees every node alive: the joiner's clock
   * has just jumped two minutes, after which Hazelcast may take it for dead for a moment, and a key's
   * first live replica, which the conditional writes below depend on, would not be the joiner then.
   */
  private void awaitStage(String stage) {
    TopologyView[] seen = new TopologyView[1];
    Await.until("the change reaches its " + stage + " with every node seen alive", CHANGE, () -> {
      seen[0] = TopologyView.fetch(cluster.http(0));
      if ("stable".equals(seen[0].stage())) {
        fail("the change was over before it was seen at its " + stage + ": " + seen[0].describe());
      }
      return stage.equals(seen[0].stage()) && seen[0].alive().values().stream().allMatch(Boolean.TRUE::equals);
    }, () -> seen[0] == null ? "no answer" : seen[0].describe() + ", alive " + seen[0].alive());
  }

  /** A key whose first replica at from=3 is (or is not) the joiner after the join, and another node before it. */
  private String keyWhoseFirstReplica(boolean movesToJoiner) {
    List<NodeUrl> after = cluster.urls().stream().map(url -> NodeUrl.parse("url", url)).toList();
    Rendezvous before = new Rendezvous(after.subList(0, 3));
    Rendezvous now = new Rendezvous(after);
    for (int i = 0; ; i++) {
      byte[] key = ("cas-" + i).getBytes(StandardCharsets.UTF_8);
      boolean moves = !before.replicasFor(key, 3).get(0).equals(now.replicasFor(key, 3).get(0));
      if (moves == movesToJoiner) {
        return "cas-" + i;
      }
    }
  }

  private HttpResponse<byte[]> conditionalPut(String key) {
    return cluster.http(0).send("PUT", "/v0/entity?id=" + Http.encode(key) + "&ack=2&from=3",
        HttpRequest.BodyPublishers.ofString("set once"), "If-None-Match", "*");
  }

  private int copies(String key) {
    int found = 0;
    for (int node : cluster.members()) {
      if (cluster.copy(node, key) != null) {
        found++;
      }
    }
    return found;
  }
}
