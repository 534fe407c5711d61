package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three nodes as real processes, written to at ack=2/from=3 by several writers through every
 * node while nodes are killed with {@code kill -9} and started again, one after another. Each
 * key has one writer, who writes it sequentially with ever larger values, so the last value
 * acknowledged (201) for a key is a floor for what any later read may return. At the end, with
 * hints delivered and read repair run, every acknowledged write must be readable through every
 * node and every replica must hold the same record. Right after each restart, the restarted
 * node's versions must not be ahead of the wall clock (else its writes beat later ones).
 */
@ProcessTier
class CrashTest {
  private static final int WRITERS = 4;
  private static final int KEYS_PER_WRITER = 25;
  private static final int WRITES_IN_A_ROW = 3;
  private static final int KILLS = 3;
  /** Acknowledged writes to wait for between two steps of the kill cycle. */
  private static final int WRITES_PER_STEP = 150;
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static final Pattern LEASE_WAIT = Pattern.compile("waiting (\\d+) ms for the wall clock");
  /** How far a version may be ahead of this process's reading of the same wall clock. */
  private static final long CLOCK_SLACK_MS = 50;

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final List<Thread> writers = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    writing.set(false);
    for (Thread writer : writers) {
      writer.join(10_000);
    }
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void acknowledgedWritesSurviveRepeatedKill9AndReplicasConverge() throws Exception {
    cluster = clusters.start(3, new JsonObject()
        .put("replicaTimeoutMs", 1_000)
        .put("hints", new JsonObject().put("retryMs", 500))
        .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", 3)));
    long started = System.nanoTime();

    Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    Map<String, Long> attempted = new ConcurrentHashMap<>();
    AtomicLong acks = new AtomicLong();
    Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      Thread thread = new Thread(() -> {
        long counter = 0;
        while (writing.get()) {
          counter++;
          // Each key gets a few writes in a row, each through another node.
          String key = "k-" + writer + "-" + ((counter / WRITES_IN_A_ROW) % KEYS_PER_WRITER);
          int node = (int) ((counter + writer) % cluster.size());
          attempted.put(key, counter);
          int status = put(client, cluster.url(node), key, Long.toString(counter));
          if (status == 201) {
            acknowledged.put(key, counter);
            acks.incrementAndGet();
          } else {
            failures.computeIfAbsent(status == 0 ? "connection error" : Integer.toString(status), s -> new AtomicLong())
                .incrementAndGet();
          }
        }
      }, "writer-" + w);
      writers.add(thread);
      thread.start();
    }

    List<Long> restartMillis = new ArrayList<>();
    for (int kill = 0; kill < KILLS; kill++) {
      int victim = kill % cluster.size();
      awaitMoreAcks(acks, "before killing node " + victim);
      cluster.kill(victim);
      // Most kills leave the node down until membership has noticed, and writes go on without it;
      // one restarts it at once, as a supervisor would, while the others still count it alive.
      boolean immediateRestart = kill == 1;
      if (!immediateRestart) {
        cluster.awaitSeenDown(victim);
        awaitMoreAcks(acks, "while node " + victim + " is down");
      }
      long restart = System.nanoTime();
      cluster.startAgain(victim);
      assertClockNotAhead(victim);
      cluster.awaitAllSeeAll();
      restartMillis.add((System.nanoTime() - restart) / 1_000_000);
    }
    awaitMoreAcks(acks, "after the last restart");
    writing.set(false);
    for (Thread writer : writers) {
      writer.join(30_000);
      assertTrue(!writer.isAlive(), writer.getName() + " did not stop");
    }
    long writesEnded = System.nanoTime();

    Await.until("every node has delivered its hints", CONVERGE, () -> {
      for (int i = 0; i < cluster.size(); i++) {
        if (cluster.pendingHints(i) > 0) {
          return false;
        }
      }
      return true;
    });
    long hintsDelivered = System.nanoTime();

    List<String> lost = new ArrayList<>();
    for (Map.Entry<String, Long> entry : new HashMap<>(acknowledged).entrySet()) {
      String key = entry.getKey();
      for (int i = 0; i < cluster.size(); i++) {
        HttpResponse<byte[]> read = cluster.http(i).get("/v0/entity?id=" + key + "&ack=3&from=3");
        assertEquals(200, read.statusCode(), "GET " + key + " through " + cluster.url(i) + ": " + Http.text(read));
        long value = Long.parseLong(Http.text(read));
        if (value < entry.getValue()) {
          lost.add(key + " through " + cluster.url(i) + ": read " + value + ", acknowledged " + entry.getValue());
        }
        assertTrue(value <= attempted.get(key), key + " reads " + value + ", which was never written");
      }
    }
    if (!lost.isEmpty()) {
      fail(lost.size() + " reads returned less than an acknowledged write, e.g. " + lost.subList(0, Math.min(10, lost.size())));
    }

    long readsDone = System.nanoTime();
    Await.until("every replica holds the same record of every key", CONVERGE, () -> {
      for (String key : acknowledged.keySet()) {
        ReplicaCopy first = cluster.copy(0, key);
        if (first == null || !first.equals(cluster.copy(1, key)) || !first.equals(cluster.copy(2, key))) {
          return false;
        }
      }
      return true;
    });
    long converged = System.nanoTime();
    for (String key : acknowledged.keySet()) {
      long value = Long.parseLong(cluster.copy(0, key).value());
      assertTrue(value >= acknowledged.get(key), key + ": replicas agree on " + value + " < acknowledged " + acknowledged.get(key));
    }

    for (int i = 0; i < cluster.size(); i++) {
      assertTrue(!cluster.log(i).contains("has been blocked for"), "node " + i + " logged a blocked thread:\n" + cluster.log(i));
    }
    List<String> leaseWaits = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      Matcher wait = LEASE_WAIT.matcher(cluster.log(i));
      while (wait.find()) {
        leaseWaits.add(wait.group(1));
      }
    }
    System.out.printf("CrashTest: lease waits at restart %s ms%n", leaseWaits);
    System.out.printf("CrashTest: %d writes acknowledged, not acknowledged %s, %d kills,"
            + " restarts took %s ms, %d keys verified through each of %d nodes; hints delivered %d ms after the writes"
            + " ended; verifying reads took %d ms, replicas identical %d ms after them; whole run %d s%n",
        acks.get(), failures, KILLS, restartMillis, acknowledged.size(), cluster.size(),
        (hintsDelivered - writesEnded) / 1_000_000, (readsDone - hintsDelivered) / 1_000_000,
        (converged - readsDone) / 1_000_000,
        (System.nanoTime() - started) / 1_000_000_000);
  }

  /**
   * The restarted node's first versions must not run ahead of the wall clock (which all nodes
   * here share): a node whose clock runs ahead wins over later writes coordinated elsewhere.
   */
  private void assertClockNotAhead(int node) {
    // Right after the node serves, before the others' writes reach it and move its clock; a key
    // it alone holds at from=1, so the write needs no peer.
    Rendezvous placement = new Rendezvous(cluster.urls().stream().map(url -> NodeUrl.parse("url", url)).toList());
    String key = "clock-probe-" + node + "-";
    int n = 0;
    while (!placement.replicasFor((key + n).getBytes(StandardCharsets.UTF_8), 1).get(0).toString().equals(cluster.url(node))) {
      n++;
    }
    HttpResponse<byte[]> put = cluster.http(node).put("/v0/entity?id=" + key + n + "&ack=1&from=1", "probe");
    long now = System.currentTimeMillis();
    assertEquals(201, put.statusCode(), Http.text(put));
    long versionMillis = HybridLogicalClock.millisOf(Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow()));
    assertTrue(versionMillis <= now + CLOCK_SLACK_MS, "node " + node + " restarted after kill -9 issues versions "
        + (versionMillis - now) + " ms ahead of the wall clock");
  }

  private static void awaitMoreAcks(AtomicLong acks, String when) {
    long target = acks.get() + WRITES_PER_STEP;
    Await.until(WRITES_PER_STEP + " more writes are acknowledged " + when, Duration.ofSeconds(60),
        () -> acks.get() >= target);
  }

  /** One PUT at ack=2/from=3: its status, 0 for a timeout or a connection error (a write not acknowledged). */
  private static int put(HttpClient client, String base, String key, String value) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + key + "&ack=2&from=3"))
        .timeout(Duration.ofSeconds(5))
        .PUT(HttpRequest.BodyPublishers.ofString(value))
        .build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }
}
