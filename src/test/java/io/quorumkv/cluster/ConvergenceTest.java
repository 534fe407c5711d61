package io.quorumkv.cluster;

import io.quorumkv.placement.Rendezvous;
import io.quorumkv.replication.ReadRepair;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.TestCluster;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.ToLongFunction;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Read repair and hinted handoff on a real 3-node cluster. Stale replicas are made by writing a
 * newer record straight into chosen replicas' own stores, so that only read repair can fix the
 * others; missed writes by stopping a replica, so that only hints can.
 */
class ConvergenceTest {
  private static final Duration CONVERGE = Duration.ofSeconds(20);

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;
  static int keys;
  private static final boolean[] stopped = new boolean[3];

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject().put("hints", new JsonObject().put("retryMs", 300)));
  }

  @AfterEach
  void restoreCluster() {
    for (int i = 0; i < 3; i++) {
      cluster.gate(i).openGate();
      if (stopped[i]) {
        cluster.restart(i);
        stopped[i] = false;
      }
    }
  }

  @Test
  void readRepairCopiesTheNewestValueFromTwoNodesOntoTheThird() {
    String key = nextKey();
    long v1 = writeEverywhere(key, "old");
    plant(key, v1 + 1, "new", 0, 1);
    assertEquals("new", text(cluster.http(0).get(entity(key, "&ack=2&from=3"))));
    Await.until("node 2 is repaired", CONVERGE, () -> "new".equals(localValue(2, key)));
  }

  @Test
  void readRepairSpreadsTheNewestValueHeldByOneNodeToTheOtherTwo() {
    String key = nextKey();
    long v1 = writeEverywhere(key, "old");
    plant(key, v1 + 1, "new", 2);
    cluster.http(1).get(entity(key, "&ack=2&from=3"));
    Await.until("nodes 0 and 1 are repaired", CONVERGE,
        () -> "new".equals(localValue(0, key)) && "new".equals(localValue(1, key)));
    assertTrue(cluster.node(2).readRepair().written() + cluster.node(0).readRepair().written()
        + cluster.node(1).readRepair().written() > 0, "the repairs are counted as written");
  }

  @Test
  void readRepairFixesTheCoordinatorWhenItIsTheStaleOne() {
    String key = nextKey();
    long v1 = writeEverywhere(key, "old");
    plant(key, v1 + 1, "new", 1, 2);
    assertEquals("new", text(cluster.http(0).get(entity(key, "&ack=3&from=3"))));
    Await.until("the coordinator's own copy is repaired", CONVERGE, () -> "new".equals(localValue(0, key)));
  }

  @Test
  void readRepairRepairsDeletesToo() {
    String key = nextKey();
    long v1 = writeEverywhere(key, "doomed");
    for (int i : new int[] {0, 1}) {
      cluster.node(i).store().apply(bytes(key), Record.tombstone(v1 + 1));
    }
    assertEquals(404, cluster.http(2).get(entity(key, "&ack=3&from=3")).statusCode());
    Await.until("node 2 gets the tombstone", CONVERGE, () -> {
      Record local = cluster.node(2).store().get(bytes(key));
      return local != null && local.tombstone();
    });
  }

  @Test
  void aLargeValueIsReadFromOneReplicaAndComparedByDigestOnTheOthers() {
    String key = nextKey();
    String value = large("agreed");
    writeEverywhere(key, value);
    String small = nextKey();
    writeEverywhere(small, "small");
    for (int node = 0; node < 3; node++) {
      long comparedBefore = comparedReads();
      long repairsBefore = repairsWritten();
      double digests = counter(node, "quorumkv_read_digests_total");
      double readsAfterDigest = counter(node, "quorumkv_read_values_after_digest_total");
      assertEquals(value, text(cluster.http(node).get(entity(key, "&ack=3&from=3"))), "read through node " + node);
      assertEquals(digests + 2, counter(node, "quorumkv_read_digests_total"), "two of three answers are digests");
      assertEquals("small", text(cluster.http(node).get(entity(small, "&ack=3&from=3"))));
      assertEquals(digests + 2, counter(node, "quorumkv_read_digests_total"), "a small value comes whole from each");
      assertEquals(readsAfterDigest, counter(node, "quorumkv_read_values_after_digest_total"), "the replicas agreed");
      awaitRepairsSettled(comparedBefore + 2);
      assertEquals(repairsBefore, repairsWritten(), "a digest of the value read is no stale replica");
    }
  }

  @Test
  void aLargeValueNewerOnlyWhereDigestsCameFromIsReadWholeAndRepairedOntoTheStaleCoordinator() {
    String key = nextKey();
    long v1 = writeEverywhere(key, large("old"));
    plant(key, v1 + 1, large("new"), 1, 2);
    double readsAfterDigest = counter(0, "quorumkv_read_values_after_digest_total");
    assertEquals(large("new"), text(cluster.http(0).get(entity(key, "&ack=2&from=3"))));
    assertEquals(readsAfterDigest + 1, counter(0, "quorumkv_read_values_after_digest_total"));
    Await.until("the coordinator's own copy is repaired", CONVERGE, () -> large("new").equals(localValue(0, key)));
  }

  @Test
  void readRepairSpreadsALargeValueThatOnlyOneDigestReplicaHolds() {
    String key = nextKey();
    long v1 = writeEverywhere(key, large("old"));
    plant(key, v1 + 1, large("new"), 2);
    assertEquals(large("new"), text(cluster.http(0).get(entity(key, "&ack=3&from=3"))));
    Await.until("nodes 0 and 1 are repaired with the whole value", CONVERGE,
        () -> large("new").equals(localValue(0, key)) && large("new").equals(localValue(1, key)));
  }

  @Test
  void readRepairDoesNotDelayTheAnswerWhenAReplicaIsSlowToAcceptIt() {
    String key = nextKey();
    long v1 = writeEverywhere(key, "old");
    plant(key, v1 + 1, "new", 0, 1);
    cluster.gate(2).closeGate();
    long start = System.nanoTime();
    HttpResponse<byte[]> read = cluster.http(0).get(entity(key, "&ack=3&from=3"));
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    assertEquals("new", text(read));
    assertTrue(elapsedMs < cluster.config(0).replicaTimeoutMs(), "the read took " + elapsedMs + " ms");
    Await.until("the repair reaches node 2 and waits at its gate", CONVERGE, () -> cluster.gate(2).heldWrites() == 1);
    assertEquals("old", localValue(2, key), "the repair is still held back");
    cluster.gate(2).openGate();
    Await.until("node 2 is repaired once it accepts writes", CONVERGE, () -> "new".equals(localValue(2, key)));
  }

  @Test
  void aReadWithALargerFromThanTheWriteAddsNoCopyOutsideTheKeysHome() {
    String key = nextKey();
    assertEquals(201, cluster.http(0).put(entity(key, "&ack=1&from=1"), "single").statusCode());
    List<Integer> order = rendezvousOrder(key);
    long comparedBefore = comparedReads();
    for (int node = 0; node < 3; node++) {
      assertEquals("single", text(cluster.http(node).get(entity(key, "&from=3"))), "read through node " + node);
    }
    awaitRepairsSettled(comparedBefore + 3);

    Record home = cluster.localRecord(order.get(0), key);
    assertEquals("single", new String(home.value(), StandardCharsets.UTF_8));
    assertEquals(1, home.replicas(), "the write's from is the record's replica count");
    assertNull(cluster.localRecord(order.get(1), key), "the second node of the key's order gets no copy");
    assertNull(cluster.localRecord(order.get(2), key), "the third node of the key's order gets no copy");
  }

  @Test
  void readRepairStillCopiesTheKeyOntoAHomeReplicaThatHasNothingButNoFurther() {
    String key = nextKey();
    List<Integer> order = rendezvousOrder(key);
    HttpResponse<byte[]> put = cluster.http(0).put(entity(key, "&ack=1&from=1"), "pair");
    assertEquals(201, put.statusCode());
    long version = Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
    // As if the write had been made at from=2 and its second replica had missed it.
    cluster.node(order.get(0)).store().apply(bytes(key), Record.live(version, bytes("pair"), Record.NEVER, 2));
    long comparedBefore = comparedReads();
    assertEquals("pair", text(cluster.http(order.get(2)).get(entity(key, "&from=3"))));
    awaitRepairsSettled(comparedBefore + 1);

    Record repaired = cluster.localRecord(order.get(1), key);
    assertEquals("pair", repaired == null ? null : new String(repaired.value(), StandardCharsets.UTF_8),
        "the home replica that had nothing is repaired");
    assertEquals(version, repaired.version());
    assertEquals(2, repaired.replicas());
    assertNull(cluster.localRecord(order.get(2), key), "the coordinator, outside the key's home, gets no copy");
  }

  @Test
  void aWriteMissedByADownReplicaReachesItWhenItReturnsAndIsReadableFromItAlone() {
    String key = nextKey();
    stop(2);
    assertEquals(201, cluster.http(0).put(entity(key, "&ack=2&from=3"), "hinted").statusCode());
    Await.until("a hint for node 2 is pending on the coordinator", CONVERGE,
        () -> pendingHints(0, 2) >= 1);
    start(2);
    Await.until("node 2 receives the hint", CONVERGE, () -> "hinted".equals(localValue(2, key)));
    Await.until("the coordinator deletes the delivered hint", CONVERGE, () -> pendingHints(0, 2) == 0);
    stop(0);
    stop(1);
    assertEquals("hinted", text(cluster.http(2).get(entity(key, "&ack=1&from=3"))));
  }

  @Test
  void hintsSurviveARestartOfTheCoordinator() {
    String key = nextKey();
    stop(2);
    assertEquals(201, cluster.http(0).put(entity(key, "&ack=2&from=3"), "kept").statusCode());
    Await.until("a hint for node 2 is stored", CONVERGE, () -> pendingHints(0, 2) >= 1);
    stop(0);
    start(0);
    assertTrue(pendingHints(0, 2) >= 1, "the hint is still pending after the restart");
    start(2);
    Await.until("node 2 receives the hint kept across the restart", CONVERGE, () -> "kept".equals(localValue(2, key)));
  }

  /**
   * A graceful stop lets the replica writes of answered requests finish: the write node 2 is
   * holding when node 0 stops times out there, and its hint is stored before node 0's storage
   * closes, so node 2 gets the write once node 0 is back.
   */
  @Test
  void aReplicaWriteStillRunningAtAGracefulStopLeavesAHint() {
    String key = nextKey();
    cluster.gate(2).closeGate();
    assertEquals(201, cluster.http(0).put(entity(key, "&ack=2&from=3"), "in flight").statusCode());
    Await.until("node 2 holds the write at its gate", CONVERGE, () -> cluster.gate(2).heldWrites() == 1);
    stop(0);
    cluster.gate(2).openGate();
    Await.until("node 2 stores the write it held", CONVERGE, () -> "in flight".equals(localValue(2, key)));
    start(0);
    Await.until("node 0, back, delivers the hint it stored while stopping", CONVERGE,
        () -> cluster.node(0).hints().delivered() >= 1 && pendingHints(0, 2) == 0);
  }

  /** The nodes in the key's rendezvous order: its replicas for from = 1, 2, 3 are prefixes of it. */
  private static List<Integer> rendezvousOrder(String key) {
    return new Rendezvous(cluster.config(0).cluster()).replicasFor(bytes(key), 3).stream()
        .map(cluster::indexOf).toList();
  }

  private static long comparedReads() {
    return summedOverNodes(ReadRepair::compared);
  }

  private static long repairsWritten() {
    return summedOverNodes(ReadRepair::written);
  }

  /** A read repair counter, summed over the cluster's three coordinators. */
  private static long summedOverNodes(ToLongFunction<ReadRepair> counter) {
    long sum = 0;
    for (int node = 0; node < 3; node++) {
      sum += counter.applyAsLong(cluster.node(node).readRepair());
    }
    return sum;
  }

  /** Waits until the cluster's coordinators compared at least {@code reads} reads' answers and no repair is in flight. */
  private static void awaitRepairsSettled(long reads) {
    Await.until("read repairs settle", CONVERGE,
        () -> comparedReads() >= reads && summedOverNodes(ReadRepair::pending) == 0);
  }

  private static long pendingHints(int holder, int target) {
    return cluster.node(holder).hints().pendingByTarget().getOrDefault(cluster.url(target), 0L);
  }

  /** Writes the value to all three replicas and returns its version. */
  private static long writeEverywhere(String key, String value) {
    HttpResponse<byte[]> put = cluster.http(0).put(entity(key, "&ack=3&from=3"), value);
    assertEquals(201, put.statusCode());
    return Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
  }

  /** Puts a record straight into the given nodes' own stores, as if only they had received a write. */
  private static void plant(String key, long version, String value, int... nodes) {
    for (int node : nodes) {
      cluster.node(node).store().apply(bytes(key), Record.live(version, bytes(value), Record.NEVER));
    }
  }

  /** A value large enough to be left out of digest answers (100 KiB). */
  private static String large(String word) {
    return (word + " ").repeat(100 * 1024 / (word.length() + 1) + 1);
  }

  private static double counter(int node, String series) {
    return text(cluster.http(node).get("/metrics")).lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
        .sum();
  }

  private static String localValue(int node, String key) {
    Record record = cluster.node(node).store().get(bytes(key));
    return record == null || record.tombstone() ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  private static void stop(int node) {
    cluster.stop(node);
    stopped[node] = true;
  }

  private static void start(int node) {
    cluster.restart(node);
    stopped[node] = false;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String nextKey() {
    return "converge-" + (keys++);
  }

  private static String entity(String key, String quorum) {
    return "/v0/entity?id=" + key + quorum;
  }
}
