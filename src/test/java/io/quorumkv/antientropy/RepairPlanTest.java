package io.quorumkv.antientropy;

import io.quorumkv.storage.Record;
import io.quorumkv.versioning.HybridLogicalClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an exchange copies where, for one key. */
class RepairPlanTest {
  private static final long NOW = 1_000_000;
  private static final long GRACE = 1_000;
  private static final Record OLD = Record.live(version(NOW - 10_000), bytes("old"), Record.NEVER, 3);
  private static final Record NEW = Record.live(version(NOW - 5), bytes("new"), Record.NEVER, 3);

  @Test
  void theFresherCopyGoesToTheSideWithTheOlderOne() {
    RepairPlan plan = RepairPlan.of(OLD, NEW, NOW, GRACE);
    assertSame(NEW, plan.winner());
    assertFalse(plan.push());
    assertTrue(plan.pull());
    assertTrue(RepairPlan.of(NEW, OLD, NOW, GRACE).push());
  }

  @Test
  void aCopyGoesToTheSideWithoutOne() {
    assertTrue(RepairPlan.of(NEW, null, NOW, GRACE).push());
    assertTrue(RepairPlan.of(null, NEW, NOW, GRACE).pull());
  }

  @Test
  void aWiderReplicaCountAloneIsCopied() {
    RepairPlan plan = RepairPlan.of(NEW.withReplicas(2), NEW, NOW, GRACE);
    assertEquals(3, plan.winner().replicas());
    assertTrue(plan.pull());
    assertFalse(plan.push());
  }

  @Test
  void aTombstonePastItsGraceOverwritesAnOlderValueButIsNotCopiedWhereNothingIs() {
    Record purgeable = Record.tombstone(version(NOW - 2 * GRACE), 3);
    assertTrue(RepairPlan.of(purgeable, OLD, NOW, GRACE).push(), "it still replaces an older live copy");
    RepairPlan toEmpty = RepairPlan.of(purgeable, null, NOW, GRACE);
    assertFalse(toEmpty.push() || toEmpty.pull());
    Record recent = Record.tombstone(version(NOW - 10), 3);
    assertTrue(RepairPlan.of(recent, null, NOW, GRACE).push(), "a tombstone within its grace is copied");
  }

  @Test
  void equalCopiesNeedNothing() {
    RepairPlan plan = RepairPlan.of(NEW, Record.live(NEW.version(), bytes("new"), Record.NEVER, 3), NOW, GRACE);
    assertFalse(plan.push() || plan.pull());
  }

  private static long version(long millis) {
    return HybridLogicalClock.versionAt(millis);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
