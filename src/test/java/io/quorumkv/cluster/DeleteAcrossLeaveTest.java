package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.HomeSet;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.TopologyView;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 38, the second defect: a delete acknowledged while one replica (L) was down must stay
 * deleted after L comes back and leaves, handing its old live copy to a node (B) that did not
 * share the key before. The interleaving: the key lives on A and L ({@code from=2}); L misses
 * the delete and its hint expires; an A-B exchange confirms B after the delete (B shares nothing
 * about the key then); L returns and leaves before any exchange repairs it. At stable, B is the
 * key's other owner. A confirmation from before the change must not let A purge its tombstone:
 * before the fix it did, and anti-entropy then copied the old value back from B to A.
 */
@ProcessTier
class DeleteAcrossLeaveTest {
  private static final int A = 0;
  private static final int B = 1;
  private static final int L = 2;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  /** Two exchange intervals and the time a restart after kill -9 takes (its clock lease). */
  private static final Duration STEP = Duration.ofSeconds(90);
  /** Until A purged the tombstone (an exchange to copy it to B and confirm B, then a sweep), and for one more exchange. */
  private static final Duration PURGED = Duration.ofSeconds(120);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;

  @Test
  void aDeleteStaysDeletedWhenTheReplicaThatMissedItLeaves() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(3).conf(new JsonObject()
        .put("storage", new JsonObject().put("purgeGraceMs", 2_000).put("sweepIntervalMs", 1_000))
        .put("hints", new JsonObject().put("windowMs", 1_000))
        // Long enough that no exchange repairs L between its restart and its leave.
        .put("antiEntropy", new JsonObject().put("intervalMs", 20_000)))
        .startTimeout(START_TIMEOUT));
    String key = keyLivingOn(A, L);
    String query = "/v0/entity?id=" + Http.encode(key) + "&ack=2&from=2";
    assertEquals(201, cluster.http(A).put(query, "old value").statusCode());

    cluster.kill(L);
    cluster.awaitSeenDown(L);
    long deletedAt = System.currentTimeMillis();
    assertEquals(202, cluster.http(A).delete(query.replace("ack=2", "ack=1")).statusCode());
    Await.until("A's hint for L expired", STEP, () -> cluster.pendingHints(A) == 0);
    Await.until("an A-B exchange confirmed B after the delete", STEP, () -> confirmedAt(A, B) > deletedAt);

    cluster.startAgain(L);
    cluster.awaitAllSeeAll();
    HttpResponse<byte[]> leaving = cluster.http(L).send("POST", "/admin/cluster/leave",
        HttpRequest.BodyPublishers.noBody());
    assertEquals(202, leaving.statusCode(), () -> Http.text(leaving));
    assertEquals(0, cluster.awaitExit(L, STEP), "L's process ends by itself once it left");
    cluster.retire(L);
    Set<String> members = Set.of(cluster.url(A), cluster.url(B));
    Await.until("A and B agree L left", STEP,
        () -> List.of(A, B).stream().allMatch(node -> TopologyView.fetch(cluster.http(node)).stableWith(members)));

    try {
      awaitPurgedWithoutComingBack(key);
    } catch (AssertionError failure) {
      Path kept = Path.of("target", "delete-across-leave-logs");
      Files.createDirectories(kept);
      for (int node = 0; node < 3; node++) {
        Files.writeString(kept.resolve("node-" + node + ".log"), cluster.log(node));
      }
      throw failure;
    }
    for (int node : List.of(A, B)) {
      HttpResponse<byte[]> read = cluster.http(node).get(query);
      assertEquals(404, read.statusCode(), () -> "the deleted key through " + cluster.url(node) + ": " + Http.text(read));
    }
  }

  /**
   * Watches the two owners' own copies (internal reads, which repair nothing): A must purge its
   * tombstone only once B holds the tombstone too, and an exchange after that purge must not bring
   * the old value back to A. Before the fix A purged at once, and the next exchange copied B's old
   * live copy (handed over by L) back to A.
   */
  private void awaitPurgedWithoutComingBack(String key) {
    Await.until("A purged its tombstone, with B holding the tombstone", PURGED, () -> {
      ReplicaCopy onA = requireNotLive(key);
      ReplicaCopy onB = cluster.copy(B, key);
      return onA == null && (onB == null || onB.tombstone());
    }, () -> "A holds " + cluster.copy(A, key) + ", B holds " + cluster.copy(B, key) + "; anti-entropy on A: "
        + cluster.clusterInfo(A).getJsonObject("antiEntropy"));
    long exchanges = exchangesCompleted();
    Await.until("one more exchange between A and B", PURGED, () -> {
      requireNotLive(key);
      return exchangesCompleted() > exchanges;
    });
    requireNotLive(key);
  }

  private ReplicaCopy requireNotLive(String key) {
    ReplicaCopy onA = cluster.copy(A, key);
    if (onA != null && !onA.tombstone()) {
      fail("the deleted key's old value came back to A: " + onA + "; B holds " + cluster.copy(B, key));
    }
    return onA;
  }

  /** Exchanges completed between A and B, whichever of them starts them. */
  private long exchangesCompleted() {
    long total = 0;
    for (int node : List.of(A, B)) {
      JsonObject peers = cluster.clusterInfo(node).getJsonObject("antiEntropy").getJsonObject("peers");
      total += peers.stream().mapToLong(peer -> ((JsonObject) peer.getValue()).getLong("exchangesCompleted", 0L)).sum();
    }
    return total;
  }

  /** A key whose two replicas among the three nodes are {@code first} and {@code second}. */
  private String keyLivingOn(int first, int second) {
    List<NodeUrl> nodes = cluster.urls().stream().map(url -> NodeUrl.parse("url", url)).toList();
    Rendezvous placement = new Rendezvous(nodes);
    Set<NodeUrl> wanted = Set.of(nodes.get(first), nodes.get(second));
    for (int i = 0; ; i++) {
      String key = "deleted-" + i;
      if (Set.copyOf(HomeSet.of(placement, key.getBytes(StandardCharsets.UTF_8), 2)).equals(wanted)) {
        return key;
      }
    }
  }

  private long confirmedAt(int node, int peer) {
    JsonObject peers = cluster.clusterInfo(node).getJsonObject("antiEntropy").getJsonObject("peers");
    JsonObject status = peers.getJsonObject(cluster.url(peer));
    Long at = status == null ? null : status.getLong("confirmedAt");
    return at == null ? 0 : at;
  }
}
