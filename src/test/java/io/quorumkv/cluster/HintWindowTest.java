package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Hints older than the hint window are dropped and counted, not delivered. */
class HintWindowTest {

  @Test
  void hintsOlderThanTheWindowAreDroppedNotDelivered(@TempDir Path dataRoot) {
    JsonObject hints = new JsonObject().put("hints", new JsonObject().put("windowMs", 1).put("retryMs", 200));
    try (TestCluster cluster = TestCluster.start(2, dataRoot, hints)) {
      cluster.stop(1);
      assertEquals(201, cluster.http(0).put("/v0/entity?id=late&ack=1&from=2", "too late").statusCode());
      Await.until("the hint is stored", Duration.ofSeconds(10),
          () -> cluster.node(0).hints().stored() == 1);
      cluster.restart(1);
      Await.until("the expired hint is dropped", Duration.ofSeconds(20), () -> cluster.node(0).hints().dropped() == 1);
      assertEquals(0, cluster.node(0).hints().delivered());
      assertEquals(0L, cluster.node(0).hints().pendingByTarget().get(cluster.url(1)));
      assertNull(cluster.node(1).store().get("late".getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void hintsStoredWhileExpiredOnesAreDroppedAreAllCountedOut(@TempDir Path dataRoot) throws Exception {
    JsonObject hints = new JsonObject().put("hints", new JsonObject().put("windowMs", 1).put("retryMs", 20));
    try (TestCluster cluster = TestCluster.start(2, dataRoot, hints)) {
      cluster.stop(1);
      int writes = 3_000;
      java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(8);
      try {
        List<java.util.concurrent.Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
          String key = "busy-" + i;
          statuses.add(clients.submit(() -> cluster.http(0).put("/v0/entity?id=" + key + "&ack=1&from=2", "v")
              .statusCode()));
        }
        for (java.util.concurrent.Future<Integer> status : statuses) {
          assertEquals(201, status.get());
        }
      } finally {
        clients.shutdownNow();
      }
      Await.until("every hint is dropped and none counted pending", Duration.ofSeconds(20),
          () -> cluster.node(0).hints().dropped() == writes);
      Await.until("no hint counted pending", Duration.ofSeconds(5),
          () -> cluster.node(0).hints().pendingByTarget().get(cluster.url(1)) == 0);
      assertEquals(writes, cluster.node(0).hints().stored());
    }
  }

  @Test
  void expiredHintsOfAReplicaThatStaysDownAreDroppedWithoutWaitingForIt(@TempDir Path dataRoot) {
    JsonObject hints = new JsonObject().put("hints", new JsonObject().put("windowMs", 1).put("retryMs", 200));
    try (TestCluster cluster = TestCluster.start(2, dataRoot, hints)) {
      cluster.stop(1);
      for (int i = 0; i < 5; i++) {
        assertEquals(201, cluster.http(0).put("/v0/entity?id=gone-" + i + "&ack=1&from=2", "v").statusCode());
      }
      Await.until("the five hints are dropped while the replica is still down", Duration.ofSeconds(20),
          () -> cluster.node(0).hints().dropped() == 5);
      assertEquals(0L, cluster.node(0).hints().pendingByTarget().get(cluster.url(1)));
      assertEquals(0, cluster.node(0).hints().delivered());
    }
  }
}
