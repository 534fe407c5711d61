package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica that freezes ({@code SIGSTOP}: its sockets stay open, nothing answers), for less
 * than the failure detector's limit, so membership still sees it alive. Requests that need it
 * must fail with 504 after the replica timeout instead of hanging; requests that do not need it
 * must not slow down; after {@code SIGCONT} the writes it missed must reach it. Its twin
 * freezes the replica past the failure detector: it is declared down, writes skip it at once,
 * and after {@code SIGCONT} it rejoins and gets what it missed.
 */
@ProcessTier
class StallTest {
  private static final int STALLED = 2;
  private static final int COORDINATOR = 0;
  private static final long REPLICA_TIMEOUT_MS = 1_000;
  private static final int MAX_NO_HEARTBEAT_SECONDS = 10;
  /**
   * Time on top of the replica timeout for a 504 to come back on this noisy 2-core machine;
   * less than the timeout itself, so that a request waiting out the timeout twice fails.
   */
  private static final long SLACK_MS = 600;
  private static final int SAMPLES = 300;
  /** Concurrent requests needing the frozen node: far more than the batches a peer keeps in flight to it. */
  private static final int BURST = 48;
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void requestsNeedingAFrozenReplicaTimeOutOthersKeepTheirLatencyAndItCatchesUp() throws Exception {
    cluster = clusters.start(3, new JsonObject()
        .put("replicaTimeoutMs", REPLICA_TIMEOUT_MS)
        .put("hints", new JsonObject().put("retryMs", 500))
        .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", MAX_NO_HEARTBEAT_SECONDS)));
    Rendezvous placement = new Rendezvous(cluster.urls().stream().map(url -> NodeUrl.parse("url", url)).toList());
    NodeUrl stalled = NodeUrl.parse("url", cluster.url(STALLED));
    // Keys whose two replicas are the coordinator and the other live node, and keys one of whose two is the stalled node.
    List<String> unaffected = keys(placement, "free-", SAMPLES, false, stalled);
    List<String> needy = keys(placement, "needy-", 2, true, stalled);
    Http coordinator = cluster.http(COORDINATOR);

    latencies(coordinator, unaffected); // warm-up: connections, JIT
    long[] before = latencies(coordinator, unaffected);

    ExecutorService burstPool = Executors.newFixedThreadPool(BURST);
    long stallStart = System.nanoTime();
    cluster.suspend(STALLED);
    Map<String, Long> missed = new LinkedHashMap<>();
    long[] timeouts;
    long[] during;
    try {
      // The requests that need the frozen replica run at the same time as those that do not.
      CompletableFuture<long[]> needing = CompletableFuture.supplyAsync(() -> {
        List<Long> elapsed = new ArrayList<>();
        // More at once than the coordinator keeps connections to a peer: the last ones wait for
        // a connection, and must still answer within the replica timeout (plus slack).
        List<CompletableFuture<Long>> burst = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
          String key = needy.get(i % needy.size());
          burst.add(CompletableFuture.supplyAsync(() -> expect504(coordinator, "PUT", key, "&ack=3&from=3"), burstPool));
        }
        burst.forEach(request -> elapsed.add(request.join()));
        String one = needy.get(0);
        elapsed.add(expect504(coordinator, "PUT", one, "&ack=3&from=3"));
        elapsed.add(expect504(coordinator, "GET", one, "&ack=3&from=3"));
        elapsed.add(expect504(coordinator, "PUT", one, "&ack=2&from=2"));
        return elapsed.stream().mapToLong(Long::longValue).toArray();
      });
      during = latencies(coordinator, unaffected);
      for (int i = 0; i < 20; i++) {
        String key = "missed-" + i;
        HttpResponse<byte[]> put = coordinator.put("/v0/entity?id=" + key + "&ack=2&from=3", "while-frozen-" + i);
        assertEquals(201, put.statusCode(), "a write that needs only the two live replicas: " + Http.text(put));
        missed.put(key, Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow()));
      }
      timeouts = needing.get(60, TimeUnit.SECONDS);
    } finally {
      cluster.resume(STALLED);
      burstPool.shutdownNow();
    }
    long stallMs = (System.nanoTime() - stallStart) / 1_000_000;
    assertTrue(stallMs < MAX_NO_HEARTBEAT_SECONDS * 1_000L,
        "the stall (" + stallMs + " ms) must stay shorter than the failure detector, or it tests something else");

    long resumed = System.nanoTime();
    Await.until("the writes the frozen node missed reach its own store", CONVERGE, () -> missed.entrySet().stream()
        .allMatch(write -> {
          ReplicaCopy copy = cluster.copy(STALLED, write.getKey());
          return copy != null && copy.version() >= write.getValue();
        }));
    long caughtUpMs = (System.nanoTime() - resumed) / 1_000_000;
    cluster.awaitAllSeeAll();

    long p99Before = percentile(before, 0.99);
    long p99During = percentile(during, 0.99);
    long worstTimeout = Arrays.stream(timeouts).max().orElseThrow();
    System.out.printf("StallTest: stall %d ms; unaffected requests p50 %.2f ms -> %.2f ms, p99 %.2f ms before -> %.2f ms"
            + " during the stall (x%.2f); %d requests needing the frozen node answered 504 in %d..%d ms"
            + " (replicaTimeoutMs %d); its %d missed writes reached it %d ms after SIGCONT%n",
        stallMs, percentile(before, 0.5) / 1e6, percentile(during, 0.5) / 1e6, p99Before / 1e6, p99During / 1e6,
        (double) p99During / p99Before, timeouts.length, Arrays.stream(timeouts).min().orElseThrow(), worstTimeout,
        REPLICA_TIMEOUT_MS, missed.size(), caughtUpMs);

    assertTrue(worstTimeout <= REPLICA_TIMEOUT_MS + SLACK_MS, "a 504 took " + worstTimeout + " ms");
    assertTrue(p99During < 1_000_000_000L, "p99 of requests that do not need the frozen node: " + p99During / 1e6 + " ms");
    assertNoBlockedThreadOnALiveNode();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aReplicaFrozenPastTheFailureDetectorIsDeclaredDownThenRejoinsAndCatchesUp() throws Exception {
    int maxNoHeartbeatSeconds = 3;
    cluster = clusters.start(3, new JsonObject()
        .put("replicaTimeoutMs", REPLICA_TIMEOUT_MS)
        .put("hints", new JsonObject().put("retryMs", 500))
        .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", maxNoHeartbeatSeconds)));
    Http coordinator = cluster.http(COORDINATOR);
    Map<String, Long> missed = new LinkedHashMap<>();
    long stallStart = System.nanoTime();
    cluster.suspend(STALLED);
    long declaredDownMs;
    try {
      cluster.awaitSeenDown(STALLED);
      declaredDownMs = (System.nanoTime() - stallStart) / 1_000_000;
      long[] writeMs = new long[20];
      for (int i = 0; i < writeMs.length; i++) {
        String key = "missed-" + i;
        long start = System.nanoTime();
        HttpResponse<byte[]> put = coordinator.put("/v0/entity?id=" + key + "&ack=2&from=3", "while-down-" + i);
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(201, put.statusCode(), Http.text(put));
        writeMs[i] = elapsedMs;
        missed.put(key, Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow()));
      }
      // The median, not every write: one write held up by a busy 2-core machine says nothing of the frozen node.
      long[] sorted = writeMs.clone();
      Arrays.sort(sorted);
      assertTrue(sorted[sorted.length / 2] < REPLICA_TIMEOUT_MS, "a replica known down fails at once, yet the writes"
          + " took " + Arrays.toString(writeMs) + " ms");
    } finally {
      cluster.resume(STALLED);
    }
    long resumed = System.nanoTime();
    cluster.awaitAllSeeAll();
    long rejoinedMs = (System.nanoTime() - resumed) / 1_000_000;
    Await.until("the writes the node missed while declared down reach its own store", CONVERGE, () -> missed.entrySet()
        .stream().allMatch(write -> {
          ReplicaCopy copy = cluster.copy(STALLED, write.getKey());
          return copy != null && copy.version() >= write.getValue();
        }));
    long caughtUpMs = (System.nanoTime() - resumed) / 1_000_000;
    HttpResponse<byte[]> through = cluster.http(STALLED).put("/v0/entity?id=after-rejoin&ack=3&from=3", "v");
    assertEquals(201, through.statusCode(), "a write at 3/3 through the rejoined node: " + Http.text(through));
    System.out.printf("StallTest: frozen node declared down after %d ms (maxNoHeartbeatSeconds %d); after SIGCONT"
            + " every node sees every node alive in %d ms, and its %d missed writes reached it in %d ms%n",
        declaredDownMs, maxNoHeartbeatSeconds, rejoinedMs, missed.size(), caughtUpMs);
    assertNoBlockedThreadOnALiveNode();
  }

  /**
   * No event loop of the nodes that kept running was blocked waiting for the frozen one. The frozen
   * node is left out: its own blocked-thread checker, resumed with it, reports any task that was
   * running at SIGSTOP as blocked for the whole freeze, which says nothing of its code.
   */
  private void assertNoBlockedThreadOnALiveNode() {
    for (int i = 0; i < cluster.size(); i++) {
      if (i != STALLED) {
        assertFalse(cluster.log(i).contains("has been blocked for"), "node " + i + " logged a blocked thread:\n"
            + cluster.log(i));
      }
    }
  }

  /** {@code count} keys whose replicas at from=2 include (or exclude) the node. */
  private static List<String> keys(Rendezvous placement, String prefix, int count, boolean including, NodeUrl node) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      String key = prefix + i;
      if (placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 2).contains(node) == including) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Nanoseconds of each request: a PUT then a GET of each key at ack=2/from=2, one at a time. */
  private static long[] latencies(Http http, List<String> keys) {
    long[] elapsed = new long[keys.size() * 2];
    int n = 0;
    for (String key : keys) {
      long start = System.nanoTime();
      HttpResponse<byte[]> put = http.put("/v0/entity?id=" + key + "&ack=2&from=2", "v");
      elapsed[n++] = System.nanoTime() - start;
      assertEquals(201, put.statusCode(), "PUT " + key + ": " + Http.text(put));
      start = System.nanoTime();
      HttpResponse<byte[]> get = http.get("/v0/entity?id=" + key + "&ack=2&from=2");
      elapsed[n++] = System.nanoTime() - start;
      assertEquals(200, get.statusCode(), "GET " + key + ": " + Http.text(get));
    }
    return elapsed;
  }

  /** Sends the request, asserts a 504, returns how long the answer took in milliseconds. */
  private static long expect504(Http http, String method, String key, String quorum) {
    long start = System.nanoTime();
    HttpResponse<byte[]> response = method.equals("PUT")
        ? http.put("/v0/entity?id=" + key + quorum, "x")
        : http.get("/v0/entity?id=" + key + quorum);
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    assertEquals(504, response.statusCode(), method + " " + key + quorum + ": " + Http.text(response));
    assertTrue(Http.text(response).contains("timeout"), "the frozen replica counts as timed out: " + Http.text(response));
    return elapsedMs;
  }

  private static long percentile(long[] values, double fraction) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
  }
}
