package io.quorumkv.cluster;

import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.quorumkv.support.HomeSets;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default {@code from} is the cluster's replication factor ({@code replicationFactor}, default 3),
 * or the cluster size when smaller, and {@code ack} a majority of it; {@code from} on a request still
 * overrides it. Where the copies landed is read from each node's own store.
 */
class ReplicationFactorTest {
  private static final int KEYS = 24;

  @Test
  void fourNodesWriteThreeCopiesByDefaultAndReadFromThoseThree(@TempDir Path dataRoot) {
    try (TestCluster cluster = TestCluster.start(4, dataRoot, new JsonObject())) {
      HomeSets homes = new HomeSets(urls(cluster));
      List<String> keys = writeThroughEachNode(cluster);
      for (String key : keys) {
        awaitCopiesExactlyOn(cluster, key, homes.of(key, 3), 3);
      }
      assertFactorShown(cluster, 3, 3);

      assertEquals(201, cluster.http(1).put("/v0/entity?id=wide&from=4", "everywhere").statusCode());
      awaitCopiesExactlyOn(cluster, "wide", homes.of("wide", 4), 4);

      // Two nodes down: a default read (ack 2 of the key's 3 replicas) answers wherever two of its three are
      // up; at the old default (ack 3 of all 4) none could.
      cluster.stop(3);
      cluster.stop(2);
      Set<String> up = Set.of(cluster.url(0).toString(), cluster.url(1).toString());
      int answered = 0;
      for (String key : keys) {
        long homesUp = homes.of(key, 3).stream().filter(up::contains).count();
        HttpResponse<byte[]> read = cluster.http(0).get("/v0/entity?id=" + Http.encode(key));
        assertEquals(homesUp >= 2 ? 200 : 504, read.statusCode(), () -> key + ": " + Http.text(read));
        answered += read.statusCode() == 200 ? 1 : 0;
      }
      assertTrue(answered > 0, "some key has both nodes still up among its replicas");
    }
  }

  @Test
  void aFactorOfTwoOnThreeNodesWritesTwoCopiesAndNeedsBoth(@TempDir Path dataRoot) {
    try (TestCluster cluster = TestCluster.start(3, dataRoot, new JsonObject().put("replicationFactor", 2))) {
      HomeSets homes = new HomeSets(urls(cluster));
      List<String> keys = writeThroughEachNode(cluster);
      for (String key : keys) {
        awaitCopiesExactlyOn(cluster, key, homes.of(key, 2), 2);
      }
      assertFactorShown(cluster, 2, 2);

      // ack defaults to 2 of 2: with one replica down a default write fails, one at ack=1 succeeds.
      cluster.stop(2);
      String down = cluster.url(2).toString();
      for (String key : keys) {
        boolean replicaDown = homes.of(key, 2).contains(down);
        HttpResponse<byte[]> write = cluster.http(0).put("/v0/entity?id=" + Http.encode(key), "again");
        assertEquals(replicaDown ? 504 : 201, write.statusCode(), () -> key + ": " + Http.text(write));
        if (replicaDown) {
          assertEquals(201, cluster.http(0).put("/v0/entity?id=" + Http.encode(key) + "&ack=1", "again").statusCode());
        }
      }
    }
  }

  @Test
  void twoNodesWriteTwoCopiesByDefault(@TempDir Path dataRoot) {
    try (TestCluster cluster = TestCluster.start(2, dataRoot, new JsonObject())) {
      HomeSets homes = new HomeSets(urls(cluster));
      for (String key : writeThroughEachNode(cluster)) {
        awaitCopiesExactlyOn(cluster, key, homes.of(key, 2), 2);
      }
      assertFactorShown(cluster, 3, 2);
    }
  }

  /** Writes {@link #KEYS} keys at the default quorum, through each node in turn. */
  private static List<String> writeThroughEachNode(TestCluster cluster) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      String key = "k" + i;
      HttpResponse<byte[]> put = cluster.http(i % cluster.size()).put("/v0/entity?id=" + key, "v" + i);
      assertEquals(201, put.statusCode(), () -> key + ": " + Http.text(put));
      keys.add(key);
    }
    return keys;
  }

  /** Waits for the key's copies on {@code expected} (the last may land after the answer), then checks no node else has one. */
  private static void awaitCopiesExactlyOn(TestCluster cluster, String key, Set<String> expected, int replicas) {
    Await.until(key + " on " + expected, Duration.ofSeconds(10), () -> holders(cluster, key).equals(expected),
        () -> "held by " + holders(cluster, key));
    for (int node = 0; node < cluster.size(); node++) {
      Record copy = cluster.localRecord(node, key);
      if (copy != null) {
        assertEquals(replicas, copy.replicas(), key + "'s copy on " + cluster.url(node) + " records its from");
      }
    }
  }

  private static Set<String> holders(TestCluster cluster, String key) {
    Set<String> holders = new TreeSet<>();
    for (int node = 0; node < cluster.size(); node++) {
      if (cluster.localRecord(node, key) != null) {
        holders.add(cluster.url(node).toString());
      }
    }
    return holders;
  }

  private static void assertFactorShown(TestCluster cluster, int factor, int defaultFrom) {
    for (int node = 0; node < cluster.size(); node++) {
      HttpResponse<byte[]> response = cluster.http(node).get("/v0/cluster");
      assertEquals(200, response.statusCode());
      JsonObject topology = new JsonObject(Http.text(response)).getJsonObject("topology");
      assertEquals(factor, topology.getInteger("replicationFactor"), topology::encode);
      assertEquals(defaultFrom, topology.getInteger("defaultFrom"), topology::encode);
    }
  }

  private static List<String> urls(TestCluster cluster) {
    List<String> urls = new ArrayList<>();
    for (int node = 0; node < cluster.size(); node++) {
      urls.add(cluster.url(node).toString());
    }
    return urls;
  }
}
