package io.quorumkv.peer;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.TestCertificates;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three node processes on https with mutual TLS between them (certificates from
 * scripts/make-certs.sh), through the paths that carry data between
 * nodes: replica batches, hinted handoff, anti-entropy exchanges, and a fourth node's join with its
 * transfers. Each check reads the replicas' own copies over their internal endpoints.
 */
@ProcessTier
class TlsClusterTest {
  private static final int KEYS = 600;
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @TempDir
  Path dir;
  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();

  @Test
  void replicationHintsAntiEntropyAndAJoinRunOverMutualTls() throws Exception {
    TestCertificates certs = TestCertificates.make(dir.resolve("certs"));
    ProcessCluster cluster = clusters.start(new ProcessCluster.Options(3).tls(certs)
        .conf(new JsonObject().put("replicaTimeoutMs", 5_000)
            .put("antiEntropy", new JsonObject().put("intervalMs", 1_000)))
        .startTimeout(Duration.ofSeconds(150)));
    assertTrue(cluster.url(0).startsWith("https://"), cluster.url(0));

    // Replica batches: every write at 3/3 is on every node.
    List<String> keys = IntStream.range(0, KEYS).mapToObj(i -> "key-" + i).toList();
    for (int i = 0; i < KEYS; i++) {
      put(cluster.http(i % 3), keys.get(i), "value-" + i, "ack=3&from=3");
    }
    assertEveryNodeHolds(cluster, List.of(0, 1, 2), keys);

    // The clustered event bus (mutual TLS too) carries a cluster-wide JFR command to every node.
    HttpResponse<byte[]> published = cluster.http(0).send("POST", "/admin/jfr?name=over-tls&duration=60000&scope=cluster",
        HttpRequest.BodyPublishers.noBody());
    assertEquals(202, published.statusCode(), Http.text(published));
    for (int node = 1; node < 3; node++) {
      Http other = cluster.http(node);
      Await.until("node " + node + " runs the published recording", CONVERGE,
          () -> Http.text(other.get("/admin/jfr")).contains("\"over-tls\""));
    }
    assertEquals(202, cluster.http(0).send("POST", "/admin/jfr/stop?name=over-tls&scope=cluster",
        HttpRequest.BodyPublishers.noBody()).statusCode());
    // A cluster backup asks every node over https.
    HttpResponse<byte[]> backup = cluster.http(1).send("POST", "/admin/backup?name=tls&scope=cluster",
        HttpRequest.BodyPublishers.noBody());
    assertEquals(201, backup.statusCode(), Http.text(backup));

    // Hinted handoff: writes a stopped replica missed reach it once it is back.
    cluster.stop(2);
    cluster.awaitSeenDown(2);
    List<String> hinted = IntStream.range(0, 200).mapToObj(i -> "hinted-" + i).toList();
    for (int i = 0; i < hinted.size(); i++) {
      put(cluster.http(i % 2), hinted.get(i), "value-" + i, "ack=2&from=3");
    }
    assertTrue(cluster.pendingHints(0) + cluster.pendingHints(1) > 0, "hints are held for the stopped node");
    cluster.startAgain(2);
    cluster.awaitAllSeeAll();
    Await.until("every hint is delivered", CONVERGE, () -> cluster.pendingHints(0) + cluster.pendingHints(1) == 0);
    assertEveryNodeHolds(cluster, List.of(2), hinted);
    long delivered = cluster.clusterInfo(0).getJsonObject("hints").getLong("delivered")
        + cluster.clusterInfo(1).getJsonObject("hints").getLong("delivered");
    assertTrue(delivered >= hinted.size(), "hints delivered over TLS: " + delivered);

    // Anti-entropy: a replica that lost its data directory gets it back through tree exchanges alone.
    cluster.kill(2);
    cluster.wipeData(2);
    cluster.startAgain(2);
    cluster.awaitAllSeeAll();
    Await.until("anti-entropy restores the wiped replica", CONVERGE, () -> keys.stream()
        .allMatch(key -> cluster.copy(2, key) != null));
    assertEveryNodeHolds(cluster, List.of(2), keys);
    long repaired = repairedBy(cluster, 0) + repairedBy(cluster, 1) + repairedBy(cluster, 2);
    assertTrue(repaired >= KEYS, "anti-entropy repaired the wiped replica's keys: " + repaired);

    // A fourth node joins: the change runs its transfers over TLS, and every key reads through it.
    int added = cluster.addNode(new JsonObject());
    Await.until("the join completes", CONVERGE, cluster::stableEverywhere, cluster::topologyViews);
    Http newcomer = cluster.http(added);
    for (String key : keys) {
      HttpResponse<byte[]> read = newcomer.get("/v0/entity?id=" + key + "&ack=3&from=3");
      assertEquals(200, read.statusCode(), key + " through the new node");
      assertEquals("value-" + key.substring("key-".length()), Http.text(read));
    }
    long held = keys.stream().filter(key -> cluster.copy(added, key) != null).count();
    assertTrue(held > KEYS / 4, "the new node took its share over transfers: " + held + " of " + KEYS);
    System.out.printf("TlsClusterTest: %d keys, %d hints delivered, %d repaired, %d transferred to the new node%n",
        KEYS, delivered, repaired, held);
  }

  private static void put(Http node, String key, String value, String quorum) {
    HttpResponse<byte[]> response = node.put("/v0/entity?id=" + key + "&" + quorum, value);
    assertEquals(201, response.statusCode(), key + ": " + Http.text(response));
  }

  private static void assertEveryNodeHolds(ProcessCluster cluster, List<Integer> nodes, List<String> keys) {
    for (int node : nodes) {
      for (String key : keys) {
        ReplicaCopy copy = cluster.copy(node, key);
        assertNotNull(copy, "node " + node + " holds " + key);
        assertEquals("value-" + key.substring(key.indexOf('-') + 1), copy.value(), key + " on node " + node);
      }
    }
  }

  private static long repairedBy(ProcessCluster cluster, int node) {
    JsonObject peers = cluster.clusterInfo(node).getJsonObject("antiEntropy").getJsonObject("peers");
    return peers.fieldNames().stream().mapToLong(peer -> peers.getJsonObject(peer).getLong("keysRepaired")).sum();
  }
}
