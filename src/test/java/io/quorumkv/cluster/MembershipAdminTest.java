package io.quorumkv.cluster;

import io.quorumkv.admin.MembershipAdmin;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.NodeProcesses;
import io.quorumkv.support.PeerMetrics;
import io.quorumkv.support.Parallel;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's side of taking nodes away, on three node processes: every refusal of
 * {@code /admin/cluster/leave}, {@code /admin/cluster/remove} and {@code /admin/cluster/abort}
 * with its status and a one-line reason, a removal of a node killed with {@code kill -9} after
 * which both survivors hold every key it shared, and a leave (slowed by a throttled transfer, so that a second change meets it
 * in progress) after which the leaver's keys are on the last node, the leaver's process has
 * ended with status 0, and it refuses to start again on the same data.
 */
@ProcessTier
class MembershipAdminTest {
  private static final String TOKEN = "membership-test-token";
  private static final int A = 0;
  private static final int B = 1;
  private static final int C = 2;
  /** Written at from=2 before C is killed: a third of them had C as one of their two replicas. */
  private static final int SHARED_KEYS = 500;
  /** Written at from=1 to A and B before B leaves: about half are B's alone, for a transfer of several seconds. */
  private static final int SOLE_KEYS = 3_000;
  private static final int TRANSFER_RECORDS_PER_SECOND = 200;
  private static final int WRITE_ATTEMPTS = 5;
  private static final Duration CHANGE = Duration.ofSeconds(60);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private NodeProcesses nodes;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void refusalsSayWhyAndRemoveAndLeaveHandTheKeysOver() throws Exception {
    long started = System.nanoTime();
    nodes = clusters.startNodeProcesses(3, new JsonObject()
        .put("adminToken", TOKEN)
        .put("replicaTimeoutMs", 2_000)
        .put("transfer", new JsonObject().put("recordsPerSecond", TRANSFER_RECORDS_PER_SECOND))
        // Anti-entropy would copy keys too; off, only the transfers can have put them where they are.
        .put("antiEntropy", new JsonObject().put("intervalMs", 24 * 3_600_000L))
        .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", 5)));
    long ready = System.nanoTime();

    assertAnswer(nodes.http(A).send("POST", MembershipAdmin.LEAVE, HttpRequest.BodyPublishers.noBody()),
        401, "token of role admin required");
    assertAnswer(nodes.http(A).send("POST", MembershipAdmin.LEAVE, HttpRequest.BodyPublishers.noBody(),
        "Authorization", "Bearer not-the-token"), 401, "unknown token");
    assertAnswer(nodes.http(A).send("POST", removePath(nodes.url(C)), HttpRequest.BodyPublishers.noBody()),
        401, "token of role admin required");
    assertAnswer(nodes.http(A).send("POST", MembershipAdmin.ABORT, HttpRequest.BodyPublishers.noBody()),
        401, "token of role admin required");
    assertAnswer(admin(B, MembershipAdmin.ABORT), 409, "no change in progress to abort");
    assertAnswer(admin(A, removePath(nodes.url(B))), 409, nodes.url(B) + " is alive");
    assertAnswer(admin(A, MembershipAdmin.REMOVE), 400, "missing 'url'");
    assertAnswer(admin(A, MembershipAdmin.REMOVE + "?url="), 400, "missing 'url'");
    assertAnswer(admin(A, removePath("ftp://127.0.0.1:1")), 400, "ftp://127.0.0.1:1");
    assertAnswer(admin(B, removePath("http://127.0.0.1:1")), 409, "http://127.0.0.1:1 is not a member");
    for (int node = A; node <= C; node++) {
      JsonObject topology = nodes.clusterInfo(node).getJsonObject("topology");
      assertEquals(1L, topology.getLong("epoch"), "a refused request changed the topology: " + topology);
      assertEquals("stable", topology.getString("stage"));
    }

    // Removing C, killed with kill -9: the survivors copy to each other what C shared with them.
    Parallel.forEachIndex(SHARED_KEYS, 8, i -> write(i % 3, sharedKey(i) + "&ack=2&from=2", "value-" + i));
    nodes.kill(C);
    nodes.awaitSeen(A, C, false);
    nodes.awaitSeen(B, C, false);
    assertAnswer(admin(A, MembershipAdmin.LEAVE), 409, nodes.url(C) + " is down");
    long removing = System.nanoTime();
    HttpResponse<byte[]> removal = admin(B, removePath(nodes.url(C)));
    assertAnswer(removal, 202, "");
    assertChange(removal, "remove", C);
    awaitStableWith(Set.of(nodes.url(A), nodes.url(B)), A, B);
    long removed = System.nanoTime();
    PeerMetrics.assertExchangeSeriesFollow(nodes.http(A), Set.of(nodes.url(B)));
    PeerMetrics.assertExchangeSeriesFollow(nodes.http(B), Set.of(nodes.url(A)));
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < SHARED_KEYS; i++) {
      for (int node : new int[] {A, B}) {
        ReplicaCopy copy = ReplicaCopy.of(nodes.http(node), sharedKey(i));
        if (copy == null || !copy.value().equals("value-" + i)) {
          missing.add(sharedKey(i) + " on " + nodes.url(node) + ": " + copy);
        }
      }
    }
    assertTrue(missing.isEmpty(), missing.size() + " copies missing after the removal, e.g. "
        + missing.subList(0, Math.min(10, missing.size())));
    assertReadable(SHARED_KEYS, MembershipAdminTest::sharedKey, A, B);

    // B leaves: its keys go to A at the throttled pace, long enough for a second change to meet it.
    Parallel.forEachIndex(SOLE_KEYS, 8, i -> write(i % 2, soleKey(i) + "&ack=1&from=1", "value-" + i));
    long leaving = System.nanoTime();
    HttpResponse<byte[]> leave = admin(B, MembershipAdmin.LEAVE);
    assertAnswer(leave, 202, "");
    assertChange(leave, "leave", B);
    assertAnswer(admin(A, MembershipAdmin.LEAVE), 409, "already in progress", "leave of " + nodes.url(B));
    assertAnswer(admin(B, MembershipAdmin.LEAVE), 409, "already in progress");
    assertAnswer(admin(A, removePath(nodes.url(B))), 409, nodes.url(B) + " is alive");
    List<JsonObject> transfersSeen = new ArrayList<>();
    awaitStableWith(Set.of(nodes.url(A)), transfersSeen, A);
    long left = System.nanoTime();
    NodeProcess leaver = nodes.process(B);
    assertEquals(0, leaver.awaitExit(), "the leaver's exit status: " + leaver.log());
    assertTrue(leaver.log().contains("left the cluster"), leaver.log());
    assertTrue(transfersSeen.stream().anyMatch(transfer -> transfer.getString("from").equals(nodes.url(B))
            && transfer.getString("to").equals(nodes.url(A)) && transfer.getLong("recordsSent")
            + transfer.getLong("recordsRemaining") > 0),
        "GET /v0/cluster on A never showed B's transfer to it; it showed " + transfersSeen.size() + " transfer readings, e.g. "
            + transfersSeen.subList(0, Math.min(5, transfersSeen.size())));
    assertReadable(SOLE_KEYS, MembershipAdminTest::soleKey, A);
    assertReadable(SHARED_KEYS, MembershipAdminTest::sharedKey, A);
    PeerMetrics.assertExchangeSeriesFollow(nodes.http(A), Set.of());
    assertAnswer(admin(A, MembershipAdmin.LEAVE), 409, "last node");

    NodeProcess again = nodes.launch(B);
    assertEquals(1, again.awaitExit(), "a node that left started again: " + again.log());
    assertTrue(again.log().contains("left the cluster"), "it should say it left the cluster: " + again.log());

    System.out.printf("MembershipAdminTest: nodes ready in %d s; removal of a killed node stable in %d ms;"
            + " leave with ~%d of %d keys to hand over stable in %d ms; %d transfer readings, last %s; whole run %d s%n",
        (ready - started) / 1_000_000_000, (removed - removing) / 1_000_000, SOLE_KEYS / 2, SOLE_KEYS,
        (left - leaving) / 1_000_000, transfersSeen.size(),
        transfersSeen.isEmpty() ? "none" : transfersSeen.get(transfersSeen.size() - 1).encode(),
        (System.nanoTime() - started) / 1_000_000_000);
  }

  /**
   * Writes until acknowledged: the writes only set the scene, and on a loaded machine a replica
   * may miss its timeout (504), which leaves the write for a retry with the same value.
   */
  private void write(int node, String idAndQuorum, String value) {
    HttpResponse<byte[]> put = null;
    for (int attempt = 0; attempt < WRITE_ATTEMPTS && (put == null || put.statusCode() == 504); attempt++) {
      put = nodes.http(node).put("/v0/entity?id=" + idAndQuorum, value);
    }
    assertAnswer(put, 201);
  }

  private HttpResponse<byte[]> admin(int node, String pathAndQuery) {
    return nodes.http(node).send("POST", pathAndQuery, HttpRequest.BodyPublishers.noBody(),
        "Authorization", "Bearer " + TOKEN);
  }

  private static String removePath(String url) {
    return MembershipAdmin.REMOVE + "?url=" + Http.encode(url);
  }

  /** The status, and a body of one line holding each of {@code mentions}. */
  private static void assertAnswer(HttpResponse<byte[]> response, int status, String... mentions) {
    String body = Http.text(response);
    String request = response.request().method() + " " + response.request().uri();
    assertEquals(status, response.statusCode(), request + " answered: " + body);
    if (status >= 400) {
      assertEquals(1, body.strip().lines().count(), request + ": not one line: " + body);
    }
    for (String mention : mentions) {
      assertTrue(body.contains(mention), request + ": '" + body.strip() + "' does not mention '" + mention + "'");
    }
  }

  /** A 202's body: the topology streaming the change of {@code kind} of {@code node}. */
  private void assertChange(HttpResponse<byte[]> accepted, String kind, int node) {
    JsonObject topology = new JsonObject(Http.text(accepted));
    assertEquals("streaming", topology.getString("stage"), topology.encode());
    assertEquals(kind, topology.getJsonObject("change").getString("kind"), topology.encode());
    assertEquals(nodes.url(node), topology.getJsonObject("change").getString("node"), topology.encode());
    assertEquals("leaving", topology.getJsonObject("members").getString(nodes.url(node)), topology.encode());
  }

  private void awaitStableWith(Set<String> members, int... observers) {
    awaitStableWith(members, new ArrayList<>(), observers);
  }

  /** Waits until each observer's topology is stable with exactly {@code members}, keeping the transfers it shows meanwhile. */
  private void awaitStableWith(Set<String> members, List<JsonObject> transfersSeen, int... observers) {
    for (int observer : observers) {
      Await.until(nodes.url(observer) + " shows a stable topology of " + members, CHANGE, () -> {
        JsonObject info = nodes.clusterInfo(observer);
        info.getJsonArray("transfers").forEach(transfer -> transfersSeen.add((JsonObject) transfer));
        return info.getJsonObject("topology").getString("stage").equals("stable") && urls(info).equals(members)
            && info.getJsonArray("transfers").isEmpty();
      }, () -> nodes.clusterInfo(observer).encode());
    }
  }

  private static Set<String> urls(JsonObject clusterInfo) {
    Set<String> urls = new TreeSet<>();
    clusterInfo.getJsonArray("nodes").forEach(node -> urls.add(((JsonObject) node).getString("url")));
    return urls;
  }

  /** Every key reads back its value at the default quorum through each of the nodes. */
  private void assertReadable(int count, java.util.function.IntFunction<String> key, int... through) throws Exception {
    List<String> unreadable = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int node : through) {
      Parallel.forEachIndex(count, 8, i -> {
        HttpResponse<byte[]> read = nodes.http(node).get("/v0/entity?id=" + key.apply(i));
        if (read.statusCode() != 200 || !Http.text(read).equals("value-" + i)) {
          unreadable.add(key.apply(i) + " through " + nodes.url(node) + ": " + read.statusCode() + " " + Http.text(read));
        }
      });
    }
    assertTrue(unreadable.isEmpty(), unreadable.size() + " reads failed at the default quorum, e.g. "
        + unreadable.subList(0, Math.min(10, unreadable.size())));
  }

  private static String sharedKey(int i) {
    return "shared-" + i;
  }

  private static String soleKey(int i) {
    return "sole-" + i;
  }
}
