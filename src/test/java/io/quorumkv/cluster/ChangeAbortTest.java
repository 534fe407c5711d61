package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.Parallel;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.TopologyView;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 53, item 6: a change that waits for a node dead for good. A node the change needs (a
 * source of a join, a receiver of a leave) is killed with {@code kill -9} and its data directory
 * wiped while the change streams, before its transfer began; its transfer can then never finish.
 * The receiver of that transfer holds its transfers back for {@link #HOLD_OFF} after the step
 * (its {@code replicaTimeoutMs}, the grace a receiver waits before it pulls), so the kill lands
 * first. A throttle would not do: a transfer is one stream, and a source sends its records into
 * the socket buffers at once, so a source killed mid-transfer had usually sent everything. {@code GET /v0/cluster} must name the down node and the way out,
 * {@code POST /admin/cluster/abort} must bring the cluster back to its members from before the
 * change, every write acknowledged before and during the change must read back at the default
 * quorum, and then the dead node is removed and the change tried again, which finishes. Before
 * the fix the change stayed at {@code streaming} for good, and every request that could have
 * ended it answered 409.
 */
@ProcessTier
class ChangeAbortTest {
  /** Written at from=3 before the change: each transfer of the join and of the leave has some. */
  private static final int BEFORE_KEYS = 800;
  private static final int CLIENT_THREADS = 4;
  private static final int MAX_DURING_KEYS = 400;
  /** Writes acknowledged while the change waits for the dead node, before the abort. */
  private static final int WRITES_WHILE_STUCK = 100;
  /** The pace of the writer that runs during the change: a client's pace, not a wait. */
  private static final long WRITER_PACE_MS = 20;
  /** How long the receiver of the transfer from (or to) the node to kill waits before it pulls. */
  private static final Duration HOLD_OFF = Duration.ofSeconds(10);
  private static final long REPLICA_TIMEOUT_MS = 2_000;
  private static final int WRITE_ATTEMPTS = 5;
  private static final Duration CHANGE = Duration.ofSeconds(90);
  private static final String ABORT = "/admin/cluster/abort";

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;
  /** Every acknowledged write: key to value. */
  private final Map<String, String> acknowledged = new ConcurrentHashMap<>();

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aJoinWhoseSourceDiedForGoodIsAbortedThenTheSourceRemovedAndTheJoinTriedAgain() throws Exception {
    long started = System.nanoTime();
    cluster = clusters.start(new ProcessCluster.Options(3).conf(conf()));
    int a = 0;
    int b = 1;
    int source = 2;
    writeBefore(a, b, source);

    int joiner = cluster.launchNewNode(new JsonObject().put("replicaTimeoutMs", HOLD_OFF.toMillis()));
    cluster.awaitServing(joiner);
    awaitStreamingBeforeTransfersOf(a, source, "join");
    Writer during = Writer.start(this, a, b);
    killForGood(source);
    assertStuckOn(a, source, "abort");
    assertRefused(a, removePath(cluster.url(source)), "already in progress", ABORT);
    assertRefused(b, "/admin/cluster/leave", cluster.url(source) + " is down", ABORT);
    during.awaitMore(WRITES_WHILE_STUCK);
    during.stop();

    long aborting = System.nanoTime();
    HttpResponse<byte[]> abort = post(b, ABORT);
    assertEquals(202, abort.statusCode(), () -> Http.text(abort));
    assertRefused(a, ABORT, "no change in progress");
    assertEquals(0, cluster.awaitExit(joiner, CHANGE), "the joiner's process ends by itself once it is out");
    cluster.retire(joiner);
    Set<String> old = urls(a, b, source);
    awaitStable(old, a, b);
    long aborted = System.nanoTime();
    assertReadable(a, b);

    removeDead(source, a);
    int again = cluster.addNode(new JsonObject());
    awaitStable(urls(a, b, again), a, b, again);
    assertReadable(a, b, again);
    System.out.printf("ChangeAbortTest (join): %d keys acknowledged (%s); abort stable in %d ms;"
        + " whole run %d s%n", acknowledged.size(), during, (aborted - aborting) / 1_000_000,
        (System.nanoTime() - started) / 1_000_000_000);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aLeaveWhoseReceiverDiedForGoodIsAbortedThenTheReceiverRemovedAndTheLeaveTriedAgain() throws Exception {
    long started = System.nanoTime();
    cluster = clusters.start(new ProcessCluster.Options(4).conf(conf())
        .nodeConf(2, new JsonObject().put("replicaTimeoutMs", HOLD_OFF.toMillis())));
    int a = 0;
    int b = 1;
    int receiver = 2;
    int leaver = 3;
    writeBefore(a, b, receiver, leaver);

    HttpResponse<byte[]> leave = post(leaver, "/admin/cluster/leave");
    assertEquals(202, leave.statusCode(), () -> Http.text(leave));
    awaitStreamingBeforeTransfersOf(a, receiver, "leave");
    Writer during = Writer.start(this, a, b);
    killForGood(receiver);
    assertStuckOn(a, receiver, "abort");
    assertRefused(a, removePath(cluster.url(receiver)), "already in progress", ABORT);
    during.awaitMore(WRITES_WHILE_STUCK);
    during.stop();

    long aborting = System.nanoTime();
    HttpResponse<byte[]> abort = post(leaver, ABORT);
    assertEquals(202, abort.statusCode(), () -> Http.text(abort));
    awaitStable(urls(a, b, receiver, leaver), a, b, leaver);
    long aborted = System.nanoTime();
    assertReadable(a, b, leaver);

    removeDead(receiver, a);
    HttpResponse<byte[]> again = post(leaver, "/admin/cluster/leave");
    assertEquals(202, again.statusCode(), () -> Http.text(again));
    assertEquals(0, cluster.awaitExit(leaver, CHANGE), "the leaver's process ends by itself once it left");
    cluster.retire(leaver);
    awaitStable(urls(a, b), a, b);
    assertReadable(a, b);
    System.out.printf("ChangeAbortTest (leave): %d keys acknowledged (%s); abort stable in %d ms;"
        + " whole run %d s%n", acknowledged.size(), during, (aborted - aborting) / 1_000_000,
        (System.nanoTime() - started) / 1_000_000_000);
  }

  private static JsonObject conf() {
    return new JsonObject()
        .put("replicaTimeoutMs", REPLICA_TIMEOUT_MS)
        // Off, so that only the abort, the removal and the transfers can have put a copy where it is.
        .put("antiEntropy", new JsonObject().put("intervalMs", 24 * 3_600_000L))
        .put("hazelcast", new JsonObject().put("maxNoHeartbeatSeconds", 5));
  }

  /** Writes the keys at from=3 (ack 2) through each node in turn, each until acknowledged. */
  private void writeBefore(int... through) throws Exception {
    Parallel.forEachIndex(BEFORE_KEYS, CLIENT_THREADS, i -> {
      String key = "before-" + i;
      HttpResponse<byte[]> put = write(through[i % through.length], key, "&from=3", "value-" + i);
      assertEquals(201, put.statusCode(), () -> key + ": " + Http.text(put));
    });
  }

  /** Writes until an answer other than 504; keeps the value as acknowledged if it was. */
  private HttpResponse<byte[]> write(int node, String key, String quorum, String value) {
    HttpResponse<byte[]> put = null;
    for (int attempt = 0; attempt < WRITE_ATTEMPTS && (put == null || put.statusCode() == 504); attempt++) {
      put = cluster.http(node).put("/v0/entity?id=" + Http.encode(key) + quorum, value);
    }
    if (put.statusCode() == 201) {
      acknowledged.put(key, value);
    }
    return put;
  }

  /**
   * Waits until {@code observer} shows the change of {@code kind} streaming, and fails unless no
   * transfer from or to {@code node} has begun yet (each is {@code waiting}, or not reported).
   */
  private void awaitStreamingBeforeTransfersOf(int observer, int node, String kind) {
    Await.until("the " + kind + " streams", CHANGE,
        () -> "streaming".equals(TopologyView.fetch(cluster.http(observer)).stage()));
    TopologyView view = TopologyView.fetch(cluster.http(observer));
    assertEquals(kind, view.changeKind(), view.describe());
    String url = cluster.url(node);
    assertTrue(view.transfers().stream().filter(t -> t.from().equals(url) || t.to().equals(url))
        .allMatch(t -> t.state().equals("waiting")), () -> "a transfer of " + url + " began: " + view.describe());
  }

  private void killForGood(int node) throws Exception {
    cluster.kill(node);
    cluster.wipeData(node);
    cluster.awaitSeenDown(node);
  }

  /** The observer's {@code /v0/cluster} names the down node the change waits for, and the way out. */
  private void assertStuckOn(int observer, int down, String wayOut) {
    Await.until(cluster.url(observer) + " says the change waits for " + cluster.url(down) + ", way out " + wayOut, CHANGE,
        () -> {
          JsonObject change = cluster.clusterInfo(observer).getJsonObject("topology").getJsonObject("change");
          return change != null && wayOut.equals(change.getString("wayOut"))
              && change.getJsonArray("downNodes", new JsonArray()).contains(cluster.url(down));
        }, () -> cluster.clusterInfo(observer).getJsonObject("topology").encode());
  }

  private void removeDead(int dead, int through) {
    HttpResponse<byte[]> removal = post(through, removePath(cluster.url(dead)));
    assertEquals(202, removal.statusCode(), () -> Http.text(removal));
    cluster.retire(dead);
    List<Integer> members = cluster.members();
    awaitStable(cluster.memberUrls(), members.stream().mapToInt(Integer::intValue).toArray());
  }

  private void awaitStable(Set<String> members, int... observers) {
    for (int observer : observers) {
      Await.until(cluster.url(observer) + " stable with " + members, CHANGE,
          () -> TopologyView.fetch(cluster.http(observer)).stableWith(members),
          () -> TopologyView.fetch(cluster.http(observer)).describe());
    }
  }

  /** Every acknowledged key reads back its last acknowledged value at the default quorum through each node. */
  private void assertReadable(int... through) throws Exception {
    List<String> wrong = Collections.synchronizedList(new ArrayList<>());
    List<Map.Entry<String, String>> keys = List.copyOf(acknowledged.entrySet());
    for (int node : through) {
      Parallel.forEachIndex(keys.size(), CLIENT_THREADS, i -> {
        String key = keys.get(i).getKey();
        HttpResponse<byte[]> read = cluster.http(node).get("/v0/entity?id=" + Http.encode(key));
        if (read.statusCode() != 200 || !Http.text(read).equals(keys.get(i).getValue())) {
          wrong.add(key + " through " + cluster.url(node) + ": " + read.statusCode() + " " + Http.text(read));
        }
      });
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " acknowledged keys read wrong at the default quorum, e.g. "
        + wrong.subList(0, Math.min(10, wrong.size())));
  }

  private void assertRefused(int node, String pathAndQuery, String... mentions) {
    HttpResponse<byte[]> refused = post(node, pathAndQuery);
    String body = Http.text(refused);
    assertEquals(409, refused.statusCode(), () -> "POST " + pathAndQuery + ": " + body);
    for (String mention : mentions) {
      assertTrue(body.contains(mention), "POST " + pathAndQuery + ": '" + body.strip() + "' does not mention " + mention);
    }
  }

  private HttpResponse<byte[]> post(int node, String pathAndQuery) {
    return cluster.http(node).send("POST", pathAndQuery, HttpRequest.BodyPublishers.noBody());
  }

  private static String removePath(String url) {
    return "/admin/cluster/remove?url=" + Http.encode(url);
  }

  private Set<String> urls(int... nodes) {
    Set<String> urls = new TreeSet<>();
    for (int node : nodes) {
      urls.add(cluster.url(node));
    }
    return urls;
  }

  /** Writes new keys at the default quorum, through the given nodes in turn, until stopped; keeps the acknowledged ones. */
  private static final class Writer {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile int acknowledged;
    private volatile int attempted;
    private volatile String lastRefusal = "none";

    private Writer(ChangeAbortTest test, int... through) {
      thread = new Thread(() -> {
        for (int i = 0; i < MAX_DURING_KEYS && running.get(); i++) {
          HttpResponse<byte[]> put = test.write(through[i % through.length], "during-" + i, "", "during-value-" + i);
          if (put.statusCode() == 201) {
            acknowledged++;
          } else {
            lastRefusal = put.statusCode() + " " + Http.text(put).strip();
          }
          attempted++;
          try {
            Thread.sleep(WRITER_PACE_MS);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "change-abort-writer");
    }

    static Writer start(ChangeAbortTest test, int... through) {
      Writer writer = new Writer(test, through);
      writer.thread.start();
      return writer;
    }

    /** Waits until {@code writes} more writes were acknowledged: writes while the change waits for the dead node. */
    void awaitMore(int writes) {
      int target = acknowledged + writes;
      Await.until(target + " writes acknowledged during the change", CHANGE, () -> acknowledged >= target, this::toString);
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(TimeUnit.SECONDS.toMillis(60));
    }

    @Override
    public String toString() {
      return acknowledged + " of " + attempted + " writes acknowledged during the change, last refusal: " + lastRefusal;
    }
  }
}
