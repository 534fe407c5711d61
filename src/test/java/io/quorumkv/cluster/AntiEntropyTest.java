package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.Soak;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Anti-entropy, black-box: three node processes, a replica that missed writes and deletes for
 * good (hints dropped at once, no client reads the keys), and tombstones that must outlive a
 * replica's absence. Every check reads each replica's own copy over its internal endpoint.
 *
 * <p>A soak ({@link Soak}): 2,000 keys a test in CI, 6,000 with {@code -Dsoak=full} (or
 * {@code -Dantientropy.keys=N}).
 */
@ProcessTier
class AntiEntropyTest {
  private static final int KEYS = Soak.size("antientropy.keys", 2_000, 6_000);
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static final int WRITERS = 8;

  /** Hints expire at once, so only anti-entropy can bring a replica that was down up to date. */
  private static JsonObject conf() {
    return new JsonObject()
        .put("replicaTimeoutMs", 5_000)
        .put("hints", new JsonObject().put("windowMs", 1).put("retryMs", 200))
        .put("antiEntropy", new JsonObject().put("intervalMs", 1000));
  }

  private static ProcessCluster start(Path dir, JsonObject conf) throws IOException {
    // Three JVMs starting at once on a loaded 2-core machine can take a while.
    return ProcessCluster.start(new ProcessCluster.Options(3).conf(conf).startTimeout(Duration.ofSeconds(150)), dir);
  }

  @Test
  void aReplicaDownPastTheHintWindowCatchesUpOnWritesAndDeletesWithoutReads(@TempDir Path dir) throws Exception {
    try (ProcessCluster cluster = start(dir, conf())) {
      parallel(1000, i -> put(cluster, i % 2, "old-" + i, "v", "ack=3&from=3"));
      cluster.kill(2);
      cluster.awaitSeenDown(2);
      parallel(KEYS, i -> put(cluster, i % 2, "key-" + i, "value-" + i, "ack=2&from=3"));
      parallel(KEYS / 4, i -> delete(cluster, i % 2, "key-" + (4 * i)));
      parallel(1000, i -> delete(cluster, i % 2, "old-" + i));
      Await.until("every hint for the stopped replica is dropped", Duration.ofSeconds(30),
          () -> cluster.pendingHints(0) + cluster.pendingHints(1) == 0,
          () -> "hints of node 0: " + cluster.clusterInfo(0).getJsonObject("hints") + ", of node 1: "
              + cluster.clusterInfo(1).getJsonObject("hints"));

      long restarted = System.nanoTime();
      cluster.startAgain(2);
      cluster.awaitAllSeeAll();
      awaitTreesMatch(cluster);
      System.out.printf("AntiEntropyTest: %d keys on the restarted replica converged %d ms after its start%n",
          KEYS + 1000, (System.nanoTime() - restarted) / 1_000_000);

      List<String> keys = new ArrayList<>();
      IntStream.range(0, KEYS).forEach(i -> keys.add("key-" + i));
      IntStream.range(0, 1000).forEach(i -> keys.add("old-" + i));
      assertCopiesIdentical(cluster, keys);
      assertEquals(KEYS / 4 + 1000, countTombstones(cluster, 2, keys), "tombstones on the restarted replica");
      for (int node = 0; node < 3; node++) {
        JsonObject info = cluster.clusterInfo(node);
        assertEquals(0, info.getJsonObject("readRepairs").getLong("written"), "read repairs on node " + node);
        assertEquals(0, info.getJsonObject("hints").getLong("delivered"), "hints delivered by node " + node);
      }
      assertTrue(repairedBy(cluster, 0) + repairedBy(cluster, 1) + repairedBy(cluster, 2) >= KEYS + 1000,
          "anti-entropy repaired the missed keys: " + cluster.clusterInfo(0).getJsonObject("antiEntropy"));
    }
  }

  @Test
  void aReplicaThatLostItsDataDirectoryGetsEveryRecordBack(@TempDir Path dir) throws Exception {
    try (ProcessCluster cluster = start(dir, conf())) {
      parallel(KEYS, i -> put(cluster, i % 3, "key-" + i, "value-" + i, "ack=2&from=3"));
      parallel(KEYS / 4, i -> delete(cluster, i % 3, "key-" + (4 * i)));
      cluster.kill(2);
      cluster.wipeData(2);
      cluster.startAgain(2);
      cluster.awaitAllSeeAll();
      awaitTreesMatch(cluster);

      List<String> keys = IntStream.range(0, KEYS).mapToObj(i -> "key-" + i).toList();
      assertCopiesIdentical(cluster, keys);
      assertEquals(KEYS / 4, countTombstones(cluster, 2, keys), "tombstones on the wiped replica");
    }
  }

  @Test
  void aTombstoneOutlivesItsGraceUntilEveryReplicaHoldsItAndTheKeyNeverComesBack(@TempDir Path dir)
      throws Exception {
    JsonObject conf = conf().put("storage", new JsonObject().put("workers", 2).put("purgeGraceMs", 1000)
        .put("sweepIntervalMs", 300));
    try (ProcessCluster cluster = start(dir, conf)) {
      // With every replica up, a tombstone goes once its grace has passed and exchanges confirmed it.
      put(cluster, 0, "control", "v", "ack=3&from=3");
      assertEquals(202, cluster.http(1).delete("/v0/entity?id=control&ack=3&from=3").statusCode());
      Await.until("the control tombstone is purged on every replica", CONVERGE,
          () -> IntStream.range(0, 3).allMatch(node -> cluster.copy(node, "control") == null));

      put(cluster, 0, "doomed", "old", "ack=3&from=3");
      assertEquals("old", cluster.copy(2, "doomed").value(), "the replica about to go down holds the value");
      cluster.kill(2);
      cluster.awaitSeenDown(2);
      assertEquals(202, cluster.http(0).delete("/v0/entity?id=doomed&ack=2&from=3").statusCode());
      long passes0 = purgePasses(cluster, 0);
      long passes1 = purgePasses(cluster, 1);
      Await.until("both live replicas swept twice more after the grace", CONVERGE,
          () -> purgePasses(cluster, 0) >= passes0 + 5 && purgePasses(cluster, 1) >= passes1 + 5);
      for (int node = 0; node < 2; node++) {
        ReplicaCopy copy = cluster.copy(node, "doomed");
        assertNotNull(copy, "node " + node + " purged the tombstone while a replica still held the value");
        assertTrue(copy.tombstone());
        assertEquals(404, cluster.http(node).get("/v0/entity?id=doomed").statusCode());
      }

      cluster.startAgain(2);
      Await.until("the stale copy on the restarted replica is replaced or purged", CONVERGE, () -> {
        ReplicaCopy copy = cluster.copy(2, "doomed");
        return copy == null || copy.tombstone();
      });
      cluster.awaitAllSeeAll();
      Await.until("the tombstone is purged on every replica", CONVERGE,
          () -> IntStream.range(0, 3).allMatch(node -> cluster.copy(node, "doomed") == null));
      for (int node = 0; node < 3; node++) {
        assertEquals(404, cluster.http(node).get("/v0/entity?id=doomed&ack=3&from=3").statusCode(),
            "read through node " + node);
      }
      for (int node = 0; node < 3; node++) {
        assertNull(cluster.copy(node, "doomed"), "a read brought a copy back on node " + node);
      }
    }
  }

  /** Waits until every exchange of every pair that began after now found the trees equal. */
  private static void awaitTreesMatch(ProcessCluster cluster) {
    long since = System.currentTimeMillis();
    Await.until("every pair's trees match", CONVERGE, () -> {
      for (int node = 0; node < 3; node++) {
        JsonObject peers = cluster.clusterInfo(node).getJsonObject("antiEntropy").getJsonObject("peers");
        for (String peer : peers.fieldNames()) {
          JsonObject state = peers.getJsonObject(peer);
          if (state.getBoolean("initiator") && !inSyncSince(state, since)) {
            return false;
          }
        }
      }
      return true;
    }, () -> "anti-entropy of node 0: " + cluster.clusterInfo(0).getJsonObject("antiEntropy")
        + ", of node 1: " + cluster.clusterInfo(1).getJsonObject("antiEntropy"));
  }

  private static boolean inSyncSince(JsonObject state, long since) {
    JsonObject last = state.getJsonObject("last");
    Long startedAt = state.getLong("lastStartedAt");
    Long completedAt = state.getLong("lastCompletedAt");
    return last != null && startedAt != null && completedAt != null && startedAt > since && completedAt >= startedAt
        && last.getLong("keysDiffering") == 0;
  }

  private static void assertCopiesIdentical(ProcessCluster cluster, List<String> keys) throws Exception {
    ConcurrentLinkedQueue<String> differing = new ConcurrentLinkedQueue<>();
    parallel(keys.size(), i -> {
      String key = keys.get(i);
      ReplicaCopy first = cluster.copy(0, key);
      for (int node = 1; node < 3; node++) {
        if (!Objects.equals(first, cluster.copy(node, key))) {
          differing.add(key);
        }
      }
    });
    assertTrue(differing.isEmpty(), differing.size() + " keys differ between replicas, such as " + differing.peek());
  }

  private static long countTombstones(ProcessCluster cluster, int node, List<String> keys) {
    return keys.stream().map(key -> cluster.copy(node, key)).filter(copy -> copy != null && copy.tombstone()).count();
  }

  private static long repairedBy(ProcessCluster cluster, int node) {
    JsonObject peers = cluster.clusterInfo(node).getJsonObject("antiEntropy").getJsonObject("peers");
    return peers.fieldNames().stream().mapToLong(peer -> peers.getJsonObject(peer).getLong("keysRepaired")).sum();
  }

  private static long purgePasses(ProcessCluster cluster, int node) {
    String metrics = Http.text(cluster.http(node).get("/metrics"));
    for (String line : metrics.split("\n")) {
      if (line.startsWith("quorumkv_purge_passes_total ")) {
        return (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1));
      }
    }
    throw new AssertionError("no quorumkv_purge_passes_total in the metrics of node " + node);
  }

  private static void put(ProcessCluster cluster, int node, String key, String value, String quorum) {
    HttpResponse<byte[]> response = cluster.http(node).put("/v0/entity?id=" + key + "&" + quorum, value);
    assertEquals(201, response.statusCode(), "PUT " + key + " through node " + node + ": " + Http.text(response));
  }

  private static void delete(ProcessCluster cluster, int node, String key) {
    HttpResponse<byte[]> response = cluster.http(node).delete("/v0/entity?id=" + key + "&ack=2&from=3");
    assertEquals(202, response.statusCode(), "DELETE " + key + " through node " + node + ": " + Http.text(response));
  }

  /** Runs {@code action} for 0..count-1 from a few threads, the way clients would. */
  private static void parallel(int count, IntConsumerWithIo action) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        int first = t;
        tasks.add(pool.submit(() -> {
          for (int i = first; i < count; i += WRITERS) {
            action.accept(i);
          }
          return null;
        }));
      }
      for (Future<?> task : tasks) {
        task.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @FunctionalInterface
  private interface IntConsumerWithIo {
    void accept(int i) throws IOException;
  }
}
