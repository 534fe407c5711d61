package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.TestCluster;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntBinaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many clients write (and now and then delete) the same few keys through different nodes at
 * once: a few keys at ack 1, 2 and 3 of 3, and one hot key at ack 3 of 3.
 * Every write must be acknowledged: a write that replicas refuse for holding a newer version goes
 * again above it, and on a hot key at ack 3 most attempts lose that race.
 * Last-write-wins by version: once the writes and their fan-out have settled, every replica
 * must hold the same record of each key, and it must be the write with the highest version any
 * client was acknowledged (an acknowledged write may lose to a newer one; that is the rule).
 */
class ConcurrentWritersTest {
  private static final int CLIENTS = 12;
  private static final int WRITES_PER_CLIENT = 75;
  /** Every this many writes of a client is a delete (a tombstone with its version). */
  private static final int DELETE_EVERY = 7;
  private static final Duration SETTLE = Duration.ofSeconds(30);

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject().put("hints", new JsonObject().put("retryMs", 500)));
  }

  /** One acknowledged write: its version, as the server returned it, and its value (null for a delete). */
  private record Ack(long version, String value) {
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void fewKeysAtEveryAckAreAllAcknowledgedAndConvergeOnTheHighestVersion() throws Exception {
    writeConcurrentlyAndCheck("contended-", 4, (client, write) -> 1 + (client + write) % 3);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aHotKeyAtAckThreeIsAllAcknowledgedAndConvergesOnTheHighestVersion() throws Exception {
    writeConcurrentlyAndCheck("hot-", 1, (client, write) -> 3);
  }

  /**
   * CLIENTS threads write {@code keys} keys through every node at once, each write at the ack
   * {@code ackOf(client, write)} of 3, then checks what the class comment says.
   */
  private static void writeConcurrentlyAndCheck(String keyPrefix, int keys, IntBinaryOperator ackOf) throws Exception {
    Map<String, List<Ack>> acks = new ConcurrentHashMap<>();
    List<String> notAcknowledged = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> clients = new ArrayList<>();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      int client = c;
      Thread thread = new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < WRITES_PER_CLIENT; i++) {
            String key = keyPrefix + ((client + i) % keys);
            int ack = ackOf.applyAsInt(client, i);
            Http node = cluster.http((client + i / 3) % cluster.size());
            String query = "/v0/entity?id=" + key + "&ack=" + ack + "&from=3";
            boolean delete = i % DELETE_EVERY == DELETE_EVERY - 1;
            String value = delete ? null : "client-" + client + "-write-" + i;
            HttpResponse<byte[]> answer = delete ? node.delete(query) : node.put(query, value);
            if (answer.statusCode() == (delete ? 202 : 201)) {
              long version = Long.parseLong(answer.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
              acks.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(new Ack(version, value));
            } else {
              notAcknowledged.add(answer.statusCode() + " " + Http.text(answer));
            }
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "client-" + c);
      clients.add(thread);
      thread.start();
    }
    long start = System.nanoTime();
    go.countDown();
    for (Thread client : clients) {
      client.join(60_000);
    }
    long writesEnded = System.nanoTime();
    assertTrue(errors.isEmpty(), "clients failed: " + errors);
    // With every node up, every write should be acknowledged; if one was not, it may still win
    // on the replicas it reached, and the check below could not say which version must win.
    assertEquals(List.of(), notAcknowledged, "writes not acknowledged with every node up");

    Await.until("every replica holds the same record of each key", SETTLE, () -> {
      for (String key : acks.keySet()) {
        ReplicaCopy first = ReplicaCopy.of(cluster.http(0), key);
        if (first == null || !first.equals(ReplicaCopy.of(cluster.http(1), key))
            || !first.equals(ReplicaCopy.of(cluster.http(2), key))) {
          return false;
        }
      }
      return true;
    });
    long settled = System.nanoTime();

    assertEquals(keys, acks.size());
    for (Map.Entry<String, List<Ack>> entry : acks.entrySet()) {
      String key = entry.getKey();
      long highest = entry.getValue().stream().mapToLong(Ack::version).max().orElseThrow();
      ReplicaCopy winner = ReplicaCopy.of(cluster.http(0), key);
      assertNotNull(winner);
      assertEquals(highest, winner.version(), key + ": the replicas' version is not the highest acknowledged one");
      String held = winner.tombstone() ? null : winner.value();
      assertTrue(entry.getValue().stream().anyMatch(ack -> ack.version() == highest && Objects.equals(ack.value(), held)),
          key + ": the replicas hold " + (held == null ? "a tombstone" : held) + ", which no write acknowledged at version "
              + highest + " wrote");
      for (int i = 0; i < cluster.size(); i++) {
        HttpResponse<byte[]> read = cluster.http(i).get("/v0/entity?id=" + key + "&ack=3&from=3");
        if (held == null) {
          assertEquals(404, read.statusCode(), key + " read through " + cluster.url(i));
        } else {
          assertEquals(held, Http.text(read), key + " read through " + cluster.url(i));
        }
      }
    }
    int total = acks.values().stream().mapToInt(List::size).sum();
    long sameVersion = acks.values().stream()
        .mapToLong(list -> list.size() - list.stream().mapToLong(Ack::version).distinct().count()).sum();
    System.out.printf("ConcurrentWritersTest: %d clients, %d writes acknowledged on %d keys in %d ms"
            + " (%d acknowledged with a version another write of the same key also got; the cluster's attempts"
            + " that went again above a newer version are %.0f so far); replicas identical %d ms later%n",
        CLIENTS, total, keys, (writesEnded - start) / 1_000_000, sameVersion, supersededAttempts(),
        (settled - writesEnded) / 1_000_000);
  }

  /** The cluster's count of write attempts that replicas refused for holding a newer version. */
  private static double supersededAttempts() {
    double sum = 0;
    for (int i = 0; i < cluster.size(); i++) {
      sum += Http.text(cluster.http(i).get("/metrics")).lines()
          .filter(line -> line.startsWith("quorumkv_writes_superseded_total "))
          .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1)))
          .sum();
    }
    return sum;
  }
}
