package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.replication.BatchAnswers;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.GatedStore;
import io.quorumkv.support.TestCluster;
import io.quorumkv.web.ApiHeaders;
import io.quorumkv.wire.BatchOperations;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A healthy 3-node cluster, shared by tests that do not stop nodes. */
class ClusterTest {
  private static final String SECRET = "s3cret";

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject().put("clusterSecret", SECRET));
  }

  @Test
  void aKeyWrittenThroughAnyNodeReadsThroughEveryNode() {
    for (int writer = 0; writer < 3; writer++) {
      String key = "any-" + writer;
      cluster.http(writer).putEntity(key, "from-" + writer);
      for (int reader = 0; reader < 3; reader++) {
        assertEquals("from-" + writer, text(cluster.http(reader).get("/v0/entity?id=" + key)), "read via " + reader);
      }
    }
  }

  @Test
  void lifecycleAcrossNodes() {
    assertEquals(404, cluster.http(0).get("/v0/entity?id=life").statusCode());
    cluster.http(1).putEntity("life", "one");
    assertEquals("one", text(cluster.http(2).get("/v0/entity?id=life")));
    cluster.http(2).putEntity("life", "two");
    assertEquals("two", text(cluster.http(0).get("/v0/entity?id=life")));
    assertEquals(202, cluster.http(0).delete("/v0/entity?id=life").statusCode());
    for (int i = 0; i < 3; i++) {
      assertEquals(404, cluster.http(i).get("/v0/entity?id=life").statusCode());
    }
  }

  @Test
  void defaultQuorumAnswersAtTwoAndWritesAllThree() {
    cluster.http(0).putEntity("everywhere", "v");
    long copies = java.util.stream.IntStream.range(0, 3).filter(i -> cluster.localRecord(i, "everywhere") != null).count();
    assertTrue(copies >= 2, "answered 201 with " + copies + " copies");
    // The third replica's write is still allowed to be in flight after the answer.
    Await.until("the third copy lands", java.time.Duration.ofSeconds(10),
        () -> java.util.stream.IntStream.range(0, 3).allMatch(i -> cluster.localRecord(i, "everywhere") != null));
  }

  @Test
  void ackOneFromOneKeepsExactlyOneCopyOnTheFirstRendezvousNode() {
    Rendezvous placement = new Rendezvous(cluster.config(0).cluster());
    for (int k = 0; k < 20; k++) {
      String key = "single-" + k;
      int coordinator = k % 3;
      assertEquals(201, cluster.http(coordinator).put("/v0/entity?id=" + key + "&ack=1&from=1", "v").statusCode());
      int owner = cluster.indexOf(placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 1).get(0));
      for (int i = 0; i < 3; i++) {
        Record local = cluster.localRecord(i, key);
        if (i == owner) {
          assertNotNull(local, key + " missing on its owner " + i);
        } else {
          assertNull(local, key + " copied to " + i + " though from=1");
        }
      }
      assertEquals("v", text(cluster.http((coordinator + 1) % 3).get("/v0/entity?id=" + key + "&ack=1&from=1")));
    }
  }

  @Test
  void fromTwoWritesTheFirstTwoRendezvousNodes() {
    Rendezvous placement = new Rendezvous(cluster.config(0).cluster());
    String key = "pair";
    assertEquals(201, cluster.http(0).put("/v0/entity?id=" + key + "&ack=2&from=2", "v").statusCode());
    List<NodeUrl> replicas = placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 2);
    for (int i = 0; i < 3; i++) {
      assertEquals(replicas.contains(cluster.url(i)), cluster.localRecord(i, key) != null, "node " + i);
    }
  }

  /**
   * Group commit inside a cluster: the replica writes asked of node 1 while its storage worker
   * is held reach it as one batch and go to its store as one group (one multi-get, one write
   * batch), not one call each.
   */
  @Test
  void replicaWritesQueuedBehindABusyWorkerAreStoredAsOneGroup() {
    GatedStore replica = cluster.gate(1);
    int callsBefore = replica.writeCalls();
    int writes = 12;
    replica.closeGate();
    try {
      cluster.http(0).put("/v0/entity?id=group-0&ack=1&from=3", "v");
      Await.until("the first replica write waits at node 1's gate", java.time.Duration.ofSeconds(10),
          () -> replica.heldWrites() == 1);
      for (int i = 1; i < writes; i++) {
        assertEquals(201, cluster.http(0).put("/v0/entity?id=group-" + i + "&ack=1&from=3", "v").statusCode());
      }
      // Each write was answered by node 0's own copy (ack=1) after it was asked of node 1, where
      // the batch in flight is held: the writes wait on node 0 and leave as one batch when it returns.
    } finally {
      replica.openGate();
    }
    Await.until("node 1 stores every write", java.time.Duration.ofSeconds(10),
        () -> java.util.stream.IntStream.range(0, writes).allMatch(i -> cluster.localRecord(1, "group-" + i) != null));
    assertTrue(replica.largestWriteGroup() >= 3, "largest write group " + replica.largestWriteGroup());
    assertTrue(replica.writeCalls() - callsBefore <= writes - 2,
        (replica.writeCalls() - callsBefore) + " write calls for " + writes + " writes");
  }

  @Test
  void badAckOrFromIs400() {
    for (String query : List.of("ack=4&from=4", "from=4", "ack=3&from=2", "ack=0&from=3", "ack=4")) {
      assertEquals(400, cluster.http(0).get("/v0/entity?id=k&" + query).statusCode(), query);
      assertEquals(400, cluster.http(1).put("/v0/entity?id=k&" + query, "v").statusCode(), query);
      assertEquals(400, cluster.http(2).delete("/v0/entity?id=k&" + query).statusCode(), query);
    }
  }

  @Test
  void twoWritesThroughOneNodeInTheSameMillisecondKeepTheirOrder() {
    for (int round = 0; round < 50; round++) {
      String key = "order-" + round;
      long first = versionOf(cluster.http(0).put("/v0/entity?id=" + key, "first"));
      long second = versionOf(cluster.http(0).put("/v0/entity?id=" + key, "second"));
      assertTrue(second > first);
      for (int i = 0; i < 3; i++) {
        assertEquals("second", text(cluster.http(i).get("/v0/entity?id=" + key + "&ack=3")), "round " + round);
      }
    }
  }

  @Test
  void clusterViewListsEveryNodeAlive() {
    JsonObject view = new JsonObject(text(cluster.http(1).get("/v0/cluster")));
    assertEquals(cluster.url(1).toString(), view.getString("self"));
    assertEquals(3, view.getJsonArray("nodes").size());
    for (Object node : view.getJsonArray("nodes")) {
      assertTrue(((JsonObject) node).getBoolean("alive"), node.toString());
    }
  }

  @Test
  void internalRequestsWithoutTheClusterSecretAre403AndChangeNothing() throws Exception {
    cluster.http(0).putEntity("guarded", "original");
    HttpClient client = HttpClient.newHttpClient();
    URI uri = URI.create(cluster.url(1) + InternalEndpoint.RECORD_GET.path() + "?id=guarded");
    for (String secret : new String[] {null, "wrong"}) {
      HttpRequest.Builder write = HttpRequest.newBuilder(uri)
          .header(ApiHeaders.VERSION, Long.toString(Long.MAX_VALUE))
          .header(RecordHeaders.TOMBSTONE, "0")
          .header(RecordHeaders.EXPIRES_AT, "0")
          .PUT(HttpRequest.BodyPublishers.ofString("forged"));
      HttpRequest.Builder read = HttpRequest.newBuilder(uri).GET();
      byte[] forgedBatch = BatchOperations.encode(List.of(new BatchOperations.Operation(
          "guarded".getBytes(StandardCharsets.UTF_8), Record.live(Long.MAX_VALUE, "forged".getBytes(StandardCharsets.UTF_8), 0))))
          .getBytes();
      HttpRequest.Builder batch = HttpRequest.newBuilder(URI.create(cluster.url(1) + InternalEndpoint.RECORD_BATCH.path()))
          .POST(HttpRequest.BodyPublishers.ofByteArray(forgedBatch));
      if (secret != null) {
        write.header(InternalEndpoint.SECRET_HEADER, secret);
        read.header(InternalEndpoint.SECRET_HEADER, secret);
        batch.header(InternalEndpoint.SECRET_HEADER, secret);
      }
      assertEquals(403, client.send(write.build(), HttpResponse.BodyHandlers.ofString()).statusCode());
      assertEquals(403, client.send(read.build(), HttpResponse.BodyHandlers.ofString()).statusCode());
      assertEquals(403, client.send(batch.build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }
    assertEquals("original", text(cluster.http(1).get("/v0/entity?id=guarded&ack=3")));
    HttpResponse<String> withSecret = client.send(HttpRequest.newBuilder(uri).header(InternalEndpoint.SECRET_HEADER, SECRET).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, withSecret.statusCode());
    assertEquals("original", withSecret.body());
  }

  /** Once wrapped the clock and made the key unwritable: now refused, counted, and the key stays writable. */
  @Test
  void anInternalWriteOfTheMaximalVersionIsRefusedAndTheKeyStaysWritable() throws Exception {
    cluster.http(0).putEntity("maximal", "original");
    byte[] maximal = BatchOperations.encode(List.of(new BatchOperations.Operation(
        "maximal".getBytes(StandardCharsets.UTF_8), Record.live(Long.MAX_VALUE, "forged".getBytes(StandardCharsets.UTF_8), 0))))
        .getBytes();
    HttpResponse<byte[]> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(cluster.url(1) + InternalEndpoint.RECORD_BATCH.path()))
            .header(InternalEndpoint.SECRET_HEADER, SECRET).POST(HttpRequest.BodyPublishers.ofByteArray(maximal)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, answer.statusCode());
    BatchAnswers.Answer refused = BatchAnswers.decode(io.vertx.core.buffer.Buffer.buffer(answer.body())).get(0);
    assertTrue(refused.refused(), "refused, not stored: " + refused);
    assertTrue(refused.failure().contains("ahead of this node's clock"), refused.failure());
    assertTrue(cluster.node(1).clock().current() < Long.MAX_VALUE / 2, "the clock did not adopt it");
    cluster.http(1).putEntity("maximal", "later");
    assertEquals("later", text(cluster.http(2).get("/v0/entity?id=maximal&ack=3")));
  }

  @Test
  void eachNodeRangesOverItsOwnCopiesOnly() {
    Rendezvous placement = new Rendezvous(cluster.config(0).cluster());
    for (int k = 0; k < 30; k++) {
      cluster.http(0).put("/v0/entity?id=r-" + k + "&ack=1&from=1", "v");
    }
    int total = 0;
    for (int i = 0; i < 3; i++) {
      String body = text(cluster.http(i).get("/v0/entities?start=r-&end=r."));
      int copies = body.split("\n", -1).length - 1;
      int owned = 0;
      for (int k = 0; k < 30; k++) {
        if (placement.replicasFor(("r-" + k).getBytes(StandardCharsets.UTF_8), 1).get(0).equals(cluster.url(i))) {
          owned++;
        }
      }
      assertEquals(owned, copies, "node " + i);
      total += copies;
    }
    assertEquals(30, total);
  }

  @Test
  void aClusterWideJfrSessionStartsAndStopsOnEveryNode() {
    HttpResponse<byte[]> published = cluster.http(0).send("POST", "/admin/jfr?name=everywhere&duration=60000&scope=cluster",
        HttpRequest.BodyPublishers.noBody());
    assertEquals(202, published.statusCode(), text(published));
    for (int i = 0; i < 3; i++) {
      int node = i;
      Await.until("node " + node + " records", java.time.Duration.ofSeconds(20),
          () -> text(cluster.http(node).get("/admin/jfr")).contains("\"running\""));
    }
    assertEquals(202, cluster.http(1).send("POST", "/admin/jfr/stop?name=everywhere&scope=cluster",
        HttpRequest.BodyPublishers.noBody()).statusCode());
    for (int i = 0; i < 3; i++) {
      int node = i;
      // Not running is not enough: a stopped recording has its file only once JFR closed it (until then 409).
      Await.until("node " + node + " closed its recording", java.time.Duration.ofSeconds(20),
          () -> text(cluster.http(node).get("/admin/jfr")).contains("\"closed\""));
      assertEquals(200, cluster.http(node).get("/admin/jfr/file?name=everywhere").statusCode());
    }
  }

  private static long versionOf(HttpResponse<byte[]> response) {
    assertEquals(201, response.statusCode());
    return Long.parseLong(response.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
  }
}
