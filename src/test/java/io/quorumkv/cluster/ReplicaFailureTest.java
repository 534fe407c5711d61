package io.quorumkv.cluster;

import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication cases of docs/api.md with nodes stopped. Every key goes to all three nodes (from=3),
 * so whichever node is stopped is one of its replicas. The scenarios stop a replica, write
 * at ack=2, bring it back and stop another one, so that the read at ack=2 must combine the
 * returned (stale) replica with one that has the write.
 */
class ReplicaFailureTest {
  private static final String QUORUM = "&ack=2&from=3";

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;
  static int keys;

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject());
  }

  @AfterEach
  void everyNodeRunsAgain() {
    for (int i = 0; i < cluster.size(); i++) {
      if (!running[i]) {
        cluster.restart(i);
        running[i] = true;
      }
    }
  }

  private static final boolean[] running = {true, true, true};

  @Test
  void missedWrite() {
    String key = nextKey();
    stop(0);
    assertEquals(201, http(1).put(entity(key), "value").statusCode());
    start(0);
    stop(1);
    assertEquals("value", text(http(0).get(entity(key))));
  }

  @Test
  void missedDelete() {
    String key = nextKey();
    assertEquals(201, http(0).put(entity(key), "value").statusCode());
    stop(1);
    assertEquals(202, http(0).delete(entity(key)).statusCode());
    start(1);
    stop(2);
    assertEquals(404, http(1).get(entity(key)).statusCode());
  }

  @Test
  void missedOverwrite() {
    String key = nextKey();
    assertEquals(201, http(0).put(entity(key), "old").statusCode());
    stop(2);
    assertEquals(201, http(0).put(entity(key), "new").statusCode());
    start(2);
    stop(0);
    assertEquals("new", text(http(2).get(entity(key))));
  }

  @Test
  void missedRecreate() {
    String key = nextKey();
    assertEquals(201, http(0).put(entity(key), "first").statusCode());
    assertEquals(202, http(0).delete(entity(key)).statusCode());
    stop(1);
    assertEquals(201, http(2).put(entity(key), "again").statusCode());
    start(1);
    stop(2);
    assertEquals("again", text(http(1).get(entity(key))));
  }

  @Test
  void toleratesOneReplicaDown() {
    String key = nextKey();
    stop(2);
    assertEquals(201, http(0).put(entity(key), "value").statusCode());
    assertEquals("value", text(http(1).get(entity(key))));
    assertEquals(202, http(1).delete(entity(key)).statusCode());
    assertEquals(404, http(0).get(entity(key)).statusCode());
  }

  @Test
  void notEnoughReplicasIs504WithTheCount() {
    String key = nextKey();
    stop(1);
    stop(2);
    for (HttpResponse<byte[]> response : new HttpResponse[] {
        http(0).put(entity(key), "value"), http(0).get(entity(key)), http(0).delete(entity(key))}) {
      assertEquals(504, response.statusCode());
      assertTrue(text(response).contains("2 acks required"), text(response));
      assertTrue(text(response).contains("2 of 3 replicas failed"), text(response));
      assertTrue(text(response).contains(cluster.url(1) + ": down"), text(response));
    }
    assertEquals(201, http(0).put("/v0/entity?id=" + key + "&ack=1&from=3", "value").statusCode(),
        "ack=1 still succeeds with one live replica");
  }

  @Test
  void aReplicaKnownDownFailsAtOnceInsteadOfTimingOut() {
    String key = nextKey();
    stop(1);
    stop(2);
    long start = System.nanoTime();
    assertEquals(504, http(0).put("/v0/entity?id=" + key + "&ack=3&from=3", "v").statusCode());
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(elapsedMs < cluster.config(0).replicaTimeoutMs(), "took " + elapsedMs + " ms");
  }

  @Test
  void aNodeStartedWhileItsPeersAreDownServesWhatItsQuorumAllows() {
    String key = nextKey();
    stop(1);
    stop(2);
    stop(0);
    start(0);
    assertEquals(201, http(0).put("/v0/entity?id=" + key + "&ack=1&from=3", "alone").statusCode());
    assertEquals("alone", text(http(0).get("/v0/entity?id=" + key + "&ack=1&from=3")));
    assertEquals(504, http(0).get(entity(key)).statusCode());
  }

  private static void stop(int node) {
    cluster.stop(node);
    running[node] = false;
  }

  private static void start(int node) {
    cluster.restart(node);
    running[node] = true;
  }

  private static Http http(int node) {
    return cluster.http(node);
  }

  private static String nextKey() {
    return "failure-" + (keys++);
  }

  private static String entity(String key) {
    return "/v0/entity?id=" + key + QUORUM;
  }
}
