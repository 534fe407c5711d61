package io.quorumkv.cluster;

import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Writes through nodes whose wall clocks disagree within the maximum offset: of two writes one
 * after the other, the later one wins, whichever way the clocks disagree. Node 2's clock is the
 * one skewed; the replicas of the keys used are chosen for each case. A clock beyond the maximum
 * offset: {@link ClockRunawayTest}.
 */
class ClockSkewTest {
  private static final int SKEWED = 2;
  private static final AtomicInteger KEYS = new AtomicInteger();

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;
  static Rendezvous placement;

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject());
    placement = new Rendezvous(cluster.config(0).cluster());
  }

  @AfterEach
  void setClocksRight() {
    for (int i = 0; i < cluster.size(); i++) {
      cluster.clock(i).setOffset(0);
    }
  }

  /** The first case: the write through the node 2 s behind came second and must win. */
  @ParameterizedTest(name = "ack/from {0}")
  @ValueSource(strings = {"1/1", "2/2", "2/3"})
  void aLaterPutThroughANodeWhoseClockIsBehindWins(String quorum) {
    String key = keyOnOtherNodes(quorum);
    cluster.clock(SKEWED).setOffset(-2_000);
    put(0, key, "v1", quorum);
    put(SKEWED, key, "v2", quorum);
    assertEveryNodeReads(key, "v2", quorum);
  }

  @ParameterizedTest(name = "ack/from {0}")
  @ValueSource(strings = {"1/1", "2/2", "2/3"})
  void aLaterDeleteThroughANodeWhoseClockIsBehindWins(String quorum) {
    String key = keyOnOtherNodes(quorum);
    cluster.clock(SKEWED).setOffset(-2_000);
    put(0, key, "v1", quorum);
    assertEquals(202, cluster.http(SKEWED).delete(entity(key, quorum)).statusCode());
    assertEveryNodeReads(key, null, quorum);
  }

  /** A node ahead pins its keys: a later write through a correct node must still win. */
  @ParameterizedTest(name = "ack/from {0}")
  @ValueSource(strings = {"1/1", "2/2", "2/3"})
  void aLaterPutThroughACorrectNodeWinsOverANodeWhoseClockIsAhead(String quorum) {
    String key = keyOnOtherNodes(quorum);
    cluster.clock(SKEWED).setOffset(3_000);
    put(SKEWED, key, "v1", quorum);
    put(0, key, "v2", quorum);
    assertEveryNodeReads(key, "v2", quorum);
  }

  @ParameterizedTest(name = "ack/from {0}")
  @ValueSource(strings = {"1/1", "2/2", "2/3"})
  void aLaterDeleteThroughACorrectNodeWinsOverANodeWhoseClockIsAhead(String quorum) {
    String key = keyOnOtherNodes(quorum);
    cluster.clock(SKEWED).setOffset(3_000);
    put(SKEWED, key, "v1", quorum);
    assertEquals(202, cluster.http(1).delete(entity(key, quorum)).statusCode());
    assertEveryNodeReads(key, null, quorum);
  }

  private static void put(int node, String key, String value, String quorum) {
    HttpResponse<byte[]> response = cluster.http(node).put(entity(key, quorum), value);
    assertEquals(201, response.statusCode(), "PUT through node " + node + ": " + text(response));
  }

  private static void assertEveryNodeReads(String key, String expected, String quorum) {
    for (int node = 0; node < cluster.size(); node++) {
      HttpResponse<byte[]> read = cluster.http(node).get(entity(key, quorum));
      if (expected == null) {
        assertEquals(404, read.statusCode(), "read through node " + node + " found " + text(read));
      } else {
        assertEquals(200, read.statusCode(), "read through node " + node);
        assertEquals(expected, text(read), "read through node " + node);
      }
    }
  }

  /** A fresh key whose replicas at this quorum's {@code from} do not include the skewed node. */
  private static String keyOnOtherNodes(String quorum) {
    int from = Integer.parseInt(quorum.split("/")[1]);
    if (from == cluster.size()) {
      return "skew-" + KEYS.incrementAndGet();
    }
    Set<Integer> others = IntStream.range(0, cluster.size()).filter(i -> i != SKEWED).boxed()
        .collect(Collectors.toSet());
    return keyOn(from == 1 ? Set.of(0) : others, from);
  }

  /** A fresh key whose first {@code from} replicas are exactly {@code nodes}. */
  private static String keyOn(Set<Integer> nodes, int from) {
    while (true) {
      String key = "skew-" + KEYS.incrementAndGet();
      if (owners(key, from).equals(nodes)) {
        return key;
      }
    }
  }

  private static Set<Integer> owners(String key, int from) {
    List<io.quorumkv.config.NodeUrl> replicas = placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), from);
    Set<Integer> owners = new HashSet<>();
    replicas.forEach(url -> owners.add(cluster.indexOf(url)));
    return owners;
  }

  private static String entity(String key, String quorum) {
    String[] parts = quorum.split("/");
    return "/v0/entity?id=" + Http.encode(key) + "&ack=" + parts[0] + "&from=" + parts[1];
  }
}
