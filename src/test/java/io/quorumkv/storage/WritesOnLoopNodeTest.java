package io.quorumkv.storage;

import io.quorumkv.support.Http;
import io.quorumkv.support.Scrapes;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.InstantSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node with {@code storage.writesOnLoop} answers writes, overwrites and deletes as every node
 * does, and applies them on its event loops; without the key it never does.
 */
class WritesOnLoopNodeTest {
  private static final String APPLIED = "quorumkv_storage_loop_writes_total{outcome=\"applied\"}";
  private static final int KEYS = 40;

  @TempDir
  Path dir;

  @Test
  void aNodeThatWritesOnItsLoopsKeepsTheLatestOfEachKey() {
    try (TestNode node = TestNode.start(TestNode.config(dir, new JsonObject()
        .put("storage", new JsonObject().put("writesOnLoop", true))), InstantSource.system())) {
      writeOverwriteAndDelete(node);
      assertTrue(Scrapes.value(Http.text(node.http.get("/metrics")), APPLIED) >= 2 * KEYS,
          "the writes were applied on the event loops");
    }
  }

  @Test
  void byDefaultEveryWriteGoesToAStorageWorker() {
    try (TestNode node = TestNode.start(dir)) {
      writeOverwriteAndDelete(node);
      assertEquals(0, Scrapes.value(Http.text(node.http.get("/metrics")), APPLIED));
    }
  }

  private static void writeOverwriteAndDelete(TestNode node) {
    for (int i = 0; i < KEYS; i++) {
      assertEquals(201, node.http.put("/v0/entity?id=k" + i, "first " + i).statusCode());
    }
    for (int i = 0; i < KEYS; i++) {
      assertEquals(201, node.http.put("/v0/entity?id=k" + i, "second " + i).statusCode());
    }
    assertEquals(202, node.http.delete("/v0/entity?id=k0").statusCode());
    assertEquals(404, node.http.get("/v0/entity?id=k0").statusCode());
    for (int i = 1; i < KEYS; i++) {
      assertEquals("second " + i, Http.text(node.http.get("/v0/entity?id=k" + i)));
    }
  }
}
