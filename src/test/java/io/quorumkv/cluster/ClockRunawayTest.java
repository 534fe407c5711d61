package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose clock runs 30 s ahead, beyond the maximum offset (5 s by default): its versions
 * are refused by the other replicas, neither stored nor adopted, and never acknowledged; a key it
 * holds at such a version answers later writes with an error instead of a lost 201. Each test
 * has a cluster of its own: a clock that ran ahead keeps its versions ahead (it never goes back).
 */
class ClockRunawayTest {
  private static final int RUNAWAY = 2;

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  TestCluster cluster;

  @Test
  void aVersionFarAheadIsRefusedByTheReplicaAndNotAcknowledged() {
    cluster = clusters.startInJvm(3, new JsonObject());
    String key = keyOwnedBy(0);
    skewRunawayNode();
    HttpResponse<byte[]> refused = cluster.http(RUNAWAY).put(entity(key), "from the future");
    assertEquals(504, refused.statusCode(), text(refused));
    assertTrue(text(refused).contains("ahead of this node's clock"), text(refused));
    assertEquals(404, cluster.http(0).get(entity(key)).statusCode(), "nothing was stored");
    assertTrue(refusals(0) > 0, "the refusal is counted");
    assertEquals(0, cluster.node(RUNAWAY).hints().stored(), "a refused write is no hint: it would be refused again");

    HttpResponse<byte[]> now = cluster.http(0).put(entity(key), "now");
    assertEquals(201, now.statusCode());
    long millis = HybridLogicalClock.millisOf(Long.parseLong(now.headers().firstValue(ApiHeaders.VERSION).orElseThrow()));
    assertTrue(millis < System.currentTimeMillis() + 5_000, "the replica's clock did not adopt the far version");
  }

  @Test
  void aKeyHeldAtAFarFutureVersionRefusesLaterWritesInsteadOfLosingThem() {
    cluster = clusters.startInJvm(3, new JsonObject());
    String key = keyOwnedBy(RUNAWAY);
    skewRunawayNode();
    assertEquals(201, cluster.http(RUNAWAY).put(entity(key), "from the future").statusCode());
    HttpResponse<byte[]> later = cluster.http(0).put(entity(key), "now");
    assertNotEquals(201, later.statusCode(), "a write that loses must not be acknowledged");
    assertEquals(503, later.statusCode(), text(later));
    assertEquals(503, cluster.http(1).delete(entity(key)).statusCode());
  }

  /**
   * Moves the node's wall clock 30 s ahead. Its persisted clock lease (10 s ahead) no longer covers
   * the next version until the next renewal.
   */
  private void skewRunawayNode() {
    cluster.clock(RUNAWAY).setOffset(30_000);
    HybridLogicalClock clock = cluster.node(RUNAWAY).clock();
    Await.until("the lease covers the skewed clock", Duration.ofSeconds(10),
        () -> clock.leasedUpTo() > HybridLogicalClock.versionAt(clock.wallMillis()));
  }

  /** A fresh key whose only replica at from=1 is the node. */
  private String keyOwnedBy(int node) {
    Rendezvous placement = new Rendezvous(cluster.config(0).cluster());
    for (int i = 0; ; i++) {
      String key = "runaway-" + i;
      NodeUrl owner = placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 1).get(0);
      if (cluster.indexOf(owner) == node) {
        return key;
      }
    }
  }

  private double refusals(int node) {
    return cluster.node(node).metrics().registry().get("quorumkv_clock_versions_refused").functionCounter().count();
  }

  private static String entity(String key) {
    return "/v0/entity?id=" + Http.encode(key) + "&ack=1&from=1";
  }
}
