package io.quorumkv.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReadBack;
import io.quorumkv.support.TopologyView;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 44, part 3: a host that joins the Hazelcast group (the cluster's name and member list, as
 * a member in the test JVM, but without the cluster secret) writes straight into the board's maps
 * a topology that drops a node, then one that looks sealed but carries a MAC made without the
 * secret, an applied epoch far ahead for a node and a transfer's progress that says done. Three
 * node processes with a {@code clusterSecret}: every one ignores each value (its topology stays,
 * the same epoch and members everywhere), counts it in {@code /metrics}
 * ({@code quorumkv_board_rejected_total}) and logs it, and the nodes put their own topology back on
 * the board. Every key written before reads back through every node, and a node added afterwards
 * (the forger still in the group) joins and takes its share.
 */
@ProcessTier
class ForgedBoardTest {
  private static final String SECRET = "forged-board-test-secret";
  private static final String TOPOLOGY_MAP = "quorumkv.topology";
  private static final String APPLIED_MAP = "quorumkv.applied";
  private static final String TRANSFERS_MAP = "quorumkv.transfers";
  private static final String TOPOLOGY_KEY = "topology";
  /** Written at from=1: each on one node only, so a node dropped with its keys would lose them. */
  private static final int KEYS = 300;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  /** Every node ticks once a second; a loaded 2-core machine stretches that. */
  private static final Duration HEARD_WITHIN = Duration.ofSeconds(30);
  private static final Duration JOIN_WITHIN = Duration.ofMinutes(3);
  private static final Pattern REJECTED = Pattern.compile(
      "^quorumkv_board_rejected_total\\{map=\"([^\"]+)\",reason=\"mac\",?\\} ([0-9.E]+)$", Pattern.MULTILINE);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  private HazelcastInstance forger;

  @AfterEach
  void cleanUp() {
    if (forger != null) {
      forger.getLifecycleService().terminate();
    }
  }

  @Test
  void aForgedTopologyWrittenStraightIntoHazelcastIsIgnoredAndNoDataIsDropped() {
    assertTimeoutPreemptively(Duration.ofMinutes(8), this::run);
  }

  private void run() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(3)
        .conf(new JsonObject().put("clusterSecret", SECRET)
            .put("transfer", new JsonObject().put("recordsPerSecond", 10_000)))
        .startTimeout(START_TIMEOUT));
    Map<String, String> written = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = String.format(Locale.ROOT, "forged-%04d", i);
      HttpResponse<byte[]> answer = cluster.http(i % 3).put(ReadBack.single(key), "v" + i);
      assertEquals(201, answer.statusCode(), () -> "PUT " + key + ": " + Http.text(answer));
      written.put(key, "v" + i);
    }
    TopologyView before = TopologyView.fetch(cluster.http(0));
    assertEquals(3, before.states().size(), before::describe);

    forger = ForeignMember.join(cluster);
    IMap<String, Object> topology = forger.getMap(TOPOLOGY_MAP);
    String dropped = cluster.url(2);
    String forged = forgedTopology(before.epoch() + 100, cluster.url(0), cluster.url(1));
    topology.put(TOPOLOGY_KEY, forged);
    awaitBoardRestored(topology, forged);
    // The same forgery dressed as a sealed value: a MAC, a writer that is a member, a MAC made with another secret.
    String lookalike = "qkv1 " + "A".repeat(43) + " " + cluster.url(0) + " " + forgedTopology(before.epoch() + 200,
        cluster.url(0), cluster.url(1));
    topology.put(TOPOLOGY_KEY, lookalike);
    awaitBoardRestored(topology, lookalike);
    forger.<String, Object>getMap(APPLIED_MAP).put(dropped, before.epoch() + 1_000);
    forger.<String, Object>getMap(TRANSFERS_MAP).put((before.epoch() + 1) + "|" + cluster.url(0) + "|" + dropped,
        new JsonObject().put("from", cluster.url(0)).put("to", dropped).put("epoch", before.epoch() + 1)
            .put("state", "done").encode());

    for (int node = 0; node < 3; node++) {
      int observer = node;
      Await.until("node " + node + " counts the forged values of every map", HEARD_WITHIN,
          () -> rejected(observer, TOPOLOGY_MAP) >= 2 && rejected(observer, APPLIED_MAP) >= 1
              && rejected(observer, TRANSFERS_MAP) >= 1, () -> metrics(observer));
      TopologyView view = TopologyView.fetch(cluster.http(node));
      assertEquals(before.epoch(), view.epoch(), view::describe);
      assertEquals(before.states(), view.states(), view::describe);
      assertEquals("stable", view.stage(), view::describe);
      String log = cluster.currentLog(node);
      assertTrue(log.contains("ignored a value of Hazelcast map " + TOPOLOGY_MAP), () -> "node " + observer
          + " logs the forged topology: " + log);
      assertTrue(!log.contains(forged) && !log.contains(SECRET), "the log shows neither the forged value nor the secret");
    }
    ReadBack.assertAll(cluster, written, List.of(0, 1, 2));

    int joiner = cluster.addNode(new JsonObject());
    Await.until("every member says the join is done, with four nodes", JOIN_WITHIN, cluster::stableEverywhere,
        cluster::topologyViews);
    ReadBack.assertAll(cluster, written, List.of(0, 1, 2, joiner));
    HttpResponse<byte[]> put = cluster.http(joiner).put("/v0/entity?id=after-forgery&ack=2&from=3", "kept");
    assertEquals(201, put.statusCode(), Http.text(put));
  }

  /** A topology as the nodes write it, but stable with only the given members: the third node dropped. */
  private static String forgedTopology(long epoch, String... members) {
    JsonObject nodes = new JsonObject();
    for (String member : members) {
      nodes.put(member, "normal");
    }
    return new JsonObject().put("epoch", epoch).put("stage", "stable").putNull("change").put("members", nodes)
        .put("previous", new JsonArray()).encode();
  }

  /**
   * Waits until a node has put a topology of its own in place of the forged value (nodes that took
   * it would leave it there: it is newer than theirs).
   */
  private void awaitBoardRestored(IMap<String, Object> topology, String forged) {
    Await.until("the nodes replace the forged topology on the board", HEARD_WITHIN,
        () -> !forged.equals(topology.get(TOPOLOGY_KEY)), () -> "the board holds " + topology.get(TOPOLOGY_KEY)
            + "; node 0 sees " + TopologyView.fetch(cluster.http(0)).describe());
    Object restored = topology.get(TOPOLOGY_KEY);
    assertTrue(restored instanceof String text && text.startsWith("qkv1 "), "the board holds a sealed value: " + restored);
  }

  private String metrics(int node) {
    HttpResponse<byte[]> answer = cluster.http(node).get("/metrics");
    assertEquals(200, answer.statusCode());
    return Http.text(answer);
  }

  /** {@code quorumkv_board_rejected_total{map, reason="mac"}} on the node; 0 before its first rejection. */
  private long rejected(int node, String map) {
    Matcher series = REJECTED.matcher(metrics(node));
    while (series.find()) {
      if (series.group(1).equals(map)) {
        return (long) Double.parseDouble(series.group(2));
      }
    }
    return 0;
  }
}
