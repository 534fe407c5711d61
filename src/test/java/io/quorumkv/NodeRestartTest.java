package io.quorumkv;

import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.quorumkv.support.ManualClock;
import io.quorumkv.support.TestNode;
import io.quorumkv.versioning.ClockLease;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What survives a stop and a start of an in-process node: data, and a clock that never goes back. */
class NodeRestartTest {

  @TempDir
  Path dataDir;

  @Test
  void dataSurvivesAGracefulRestart() {
    try (TestNode node = TestNode.start(dataDir)) {
      node.http.putEntity("kept", "value");
      node.http.putEntity("deleted", "value");
      node.http.delete("/v0/entity?id=deleted");
    }
    try (TestNode node = TestNode.start(dataDir)) {
      assertEquals("value", text(node.http.get("/v0/entity?id=kept")));
      assertEquals(404, node.http.get("/v0/entity?id=deleted").statusCode());
    }
  }

  @Test
  void versionsKeepRisingAcrossARestartEvenWhenTheWallClockWentBack() {
    ManualClock clock = new ManualClock(1_800_000_000_000L);
    long lastBeforeRestart;
    Set<Long> versions = new HashSet<>();
    try (TestNode node = TestNode.start(TestNode.config(dataDir, new JsonObject()), clock)) {
      lastBeforeRestart = 0;
      for (int i = 0; i < 500; i++) {
        long version = versionOf(node.http.put("/v0/entity?id=k" + (i % 7), "v" + i));
        assertTrue(version > lastBeforeRestart, "write " + i + " in one millisecond got a lower version");
        versions.add(version);
        lastBeforeRestart = version;
      }
    }
    assertEquals(500, versions.size());
    clock.set(1_800_000_000_000L - 3_600_000);
    try (TestNode node = TestNode.start(TestNode.config(dataDir, new JsonObject()), clock)) {
      long afterRestart = versionOf(node.http.put("/v0/entity?id=k0", "after"));
      assertTrue(afterRestart > lastBeforeRestart, afterRestart + " is not above " + lastBeforeRestart);
      assertEquals("after", text(node.http.get("/v0/entity?id=k0")), "the newer write wins over the pre-restart one");
    }
  }

  @Test
  void clockBoundIsPersistedAheadOfIssuedVersions() {
    ManualClock clock = new ManualClock(1_900_000_000_000L);
    long version;
    try (TestNode node = TestNode.start(TestNode.config(dataDir, new JsonObject()), clock)) {
      version = versionOf(node.http.put("/v0/entity?id=x", "v"));
      long bound = node.node().clockLease().persistedBound();
      assertTrue(bound > version, "bound " + bound + " must be above issued " + version);
      assertTrue(bound >= io.quorumkv.versioning.HybridLogicalClock.versionAt(clock.millis() + ClockLease.LEASE_MS));
    }
  }

  @Test
  void sweepPurgesExpiredRecordsAndTombstonesAfterTheGrace() {
    ManualClock clock = ManualClock.startingNow();
    JsonObject conf = new JsonObject().put("storage",
        new JsonObject().put("sweepIntervalMs", 50).put("purgeGraceMs", 60_000));
    try (TestNode node = TestNode.start(TestNode.config(dataDir, conf), clock)) {
      node.http.put("/v0/entity?id=ttl&ttl=1000", "v");
      node.http.putEntity("gone", "v");
      node.http.delete("/v0/entity?id=gone");
      node.http.putEntity("live", "v");
      byte[] ttlKey = bytes("ttl");
      byte[] goneKey = bytes("gone");

      clock.advance(59_999);
      // Within the grace (the tombstone reaches it at +60,000, the expired record at +61,000)
      // both stay on disk.
      awaitFullSweepFrom(node);
      assertNotNull(node.node().store().get(ttlKey));
      assertNotNull(node.node().store().get(goneKey));

      clock.advance(1_001);
      Await.until("the sweep drops the expired record and the tombstone", Duration.ofSeconds(10),
          () -> node.node().store().get(ttlKey) == null && node.node().store().get(goneKey) == null);
      assertEquals("v", text(node.http.get("/v0/entity?id=live")));
    }
  }

  @Test
  void sweepKeepsARecordRewrittenAfterItExpired() {
    ManualClock clock = ManualClock.startingNow();
    JsonObject conf = new JsonObject().put("storage", new JsonObject().put("sweepIntervalMs", 50).put("purgeGraceMs", 0));
    try (TestNode node = TestNode.start(TestNode.config(dataDir, conf), clock)) {
      node.http.put("/v0/entity?id=again&ttl=10", "old");
      clock.advance(20);
      node.http.putEntity("again", "new");
      node.http.put("/v0/entity?id=marker&ttl=1", "m");
      clock.advance(5);
      Await.until("the sweep drops the marker", Duration.ofSeconds(10),
          () -> node.node().store().get(bytes("marker")) == null);
      Record kept = node.node().store().get(bytes("again"));
      assertNotNull(kept);
      assertEquals("new", new String(kept.value(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void sweepLeavesRecordsWithinTheGraceAlone() {
    ManualClock clock = ManualClock.startingNow();
    JsonObject conf = new JsonObject().put("storage", new JsonObject().put("sweepIntervalMs", 50).put("purgeGraceMs", 60_000));
    try (TestNode node = TestNode.start(TestNode.config(dataDir, conf), clock)) {
      node.http.put("/v0/entity?id=old&ttl=1", "v");
      clock.advance(30_000);
      node.http.put("/v0/entity?id=marker&ttl=1", "m");
      clock.advance(30_001);
      // "old" expired 60,000 ms ago, past the grace; "marker" only 30,000 ms ago. The pass
      // that drops "old" has already walked past "marker", which sorts first.
      Await.until("the sweep drops the record past the grace", Duration.ofSeconds(10),
          () -> node.node().store().get(bytes("old")) == null);
      assertNotNull(node.node().store().get(bytes("marker")), "a record inside the grace must stay");
    }
  }

  /** Waits until a whole sweep pass has started and finished after this call. */
  private static void awaitFullSweepFrom(TestNode node) {
    long passes = node.node().purgeSweep().passes();
    Await.until("two more sweep passes", Duration.ofSeconds(10), () -> node.node().purgeSweep().passes() >= passes + 2);
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private static long versionOf(java.net.http.HttpResponse<byte[]> response) {
    assertEquals(201, response.statusCode());
    return Long.parseLong(response.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
  }
}
