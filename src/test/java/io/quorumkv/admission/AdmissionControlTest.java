package io.quorumkv.admission;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.support.Await;
import io.quorumkv.support.GatedStore;
import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42: a node bounds the client requests it has in flight per event loop, and the storage
 * requests queued for its workers; past either bound a client request gets {@code 503} with
 * {@code Retry-After} at once, before its body is read, while status, peers' requests and the
 * requests already admitted go on. Requests are held in flight here by sending only half of
 * their body, so the bound is reached without racing anything.
 */
@ProcessTier
class AdmissionControlTest {
  private static final int BOUND = 4;
  private static final Pattern SHED = Pattern.compile("quorumkv_requests_shed_total\\{reason=\"([a-z_]+)\"[^}]*} ([0-9.]+)");

  @TempDir
  Path dir;
  private NodeProcess node;
  private final List<RawHttp> connections = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (RawHttp connection : connections) {
      connection.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void pastTheBoundOfRequestsInFlightAClientRequestIsShedAndTheAdmittedOnesComplete() throws Exception {
    int port = startNode(BOUND);
    List<RawHttp> held = new ArrayList<>();
    for (int i = 0; i < BOUND; i++) {
      held.add(holdPut(port, "held-" + i));
    }
    Await.until("the held PUTs are in flight", Duration.ofSeconds(10),
        () -> gauge(port, "quorumkv_client_requests_in_flight") == BOUND);

    RawHttp client = open(port);
    client.send(put("refused", "small"));
    RawHttp.Response refused = client.readResponse();
    assertEquals(503, refused.status(), refused.bodyText());
    assertEquals("1", refused.headers().get("retry-after"));
    assertTrue(refused.bodyText().contains("admission.maxRequestsPerLoop"), refused.bodyText());
    // Its small body was read and dropped: the connection serves the next request.
    client.send("GET /v0/entity?id=refused HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(503, client.readResponse().status(), "a GET is a client request too");
    client.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(200, client.readResponse().status(), "status is not a client data request");
    client.send("GET " + InternalEndpoint.RECORD_GET.path() + "?id=held-0 HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(404, client.readResponse().status(), "a peer's read is never refused");

    // A large body is not read in vain: the answer comes before it, and the connection closes.
    RawHttp uploader = open(port);
    uploader.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n");
    RawHttp.Response big = uploader.readResponse();
    assertEquals(503, big.status());
    assertEquals("close", big.headers().get("connection"));

    for (int i = 0; i < BOUND; i++) {
      held.get(i).send("67890");
      assertEquals(201, held.get(i).readResponse().status(), "an admitted request completes");
    }
    Await.until("the answered requests are no longer in flight", Duration.ofSeconds(10),
        () -> gauge(port, "quorumkv_client_requests_in_flight") == 0);
    Http http = node.http();
    assertEquals(201, http.put("/v0/entity?id=after", "v").statusCode(), "the node admits again");
    assertEquals("1234567890", Http.text(http.get("/v0/entity?id=held-3")));
    assertEquals(404, http.get("/v0/entity?id=refused").statusCode(), "the refused PUT wrote nothing");
    assertEquals(3.0, shed(port, "in_flight"), "the three refusals are counted by reason");
  }

  /**
   * Two event loops with a share of 2 each: the node takes 4 at once, wherever the connections
   * landed (here every other connection, which Vert.x puts on one loop), and refuses the fifth.
   */
  @Test
  void theBoundIsTheNodesWhicheverLoopsTheConnectionsLandOn() throws Exception {
    int port = startNode(2, 2);
    List<RawHttp> opened = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      RawHttp connection = open(port);
      connection.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
      assertEquals(200, connection.readResponse().status());
      opened.add(connection);
    }
    List<RawHttp> held = new ArrayList<>();
    for (int i = 0; i < 8 && held.size() < 4; i += 2) {
      RawHttp connection = opened.get(i);
      connection.send("PUT /v0/entity?id=held-" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345");
      held.add(connection);
    }
    Await.until("four PUTs are in flight", Duration.ofSeconds(10),
        () -> gauge(port, "quorumkv_client_requests_in_flight") == 4);
    RawHttp fifth = opened.get(1);
    fifth.send(put("fifth", "v"));
    RawHttp.Response refused = fifth.readResponse();
    assertEquals(503, refused.status(), refused.bodyText());
    assertTrue(refused.bodyText().contains("4 client requests in flight on this node"), refused.bodyText());
    for (RawHttp connection : held) {
      connection.send("67890");
      assertEquals(201, connection.readResponse().status());
    }
  }

  @Test
  void withTheBoundOffTheRequestsAreAllAdmitted() throws Exception {
    int port = startNode(0);
    List<RawHttp> held = new ArrayList<>();
    for (int i = 0; i < BOUND + 2; i++) {
      held.add(holdPut(port, "held-" + i));
    }
    Await.until("every held PUT is in flight", Duration.ofSeconds(10),
        () -> gauge(port, "quorumkv_client_requests_in_flight") == BOUND + 2);
    for (RawHttp connection : held) {
      connection.send("67890");
      assertEquals(201, connection.readResponse().status());
    }
    assertEquals(0.0, shed(port, "in_flight"));
  }

  @Test
  void pastTheBoundOfQueuedStorageWorkAClientRequestIsShed(@TempDir Path data) {
    GatedStore[] store = new GatedStore[1];
    JsonObject conf = new JsonObject().put("eventLoops", 1).put("storage", new JsonObject().put("workers", 1))
        .put("admission", new JsonObject().put("maxRequestsPerLoop", 0).put("maxQueuedStorage", 2));
    try (TestNode single = TestNode.start(TestNode.config(data, conf), s -> store[0] = new GatedStore(s))) {
      store[0].closeGate();
      List<CompletableFuture<HttpResponse<byte[]>>> writes = new ArrayList<>();
      writes.add(CompletableFuture.supplyAsync(() -> single.http.put("/v0/entity?id=w0", "v")));
      Await.until("the first write holds the worker", Duration.ofSeconds(10), () -> store[0].heldWrites() == 1);
      for (int i = 1; i <= 3; i++) {
        String key = "w" + i;
        writes.add(CompletableFuture.supplyAsync(() -> single.http.put("/v0/entity?id=" + key, "v")));
        int queued = i;
        Await.until(queued + " writes queued", Duration.ofSeconds(10),
            () -> gauge(single.port(), "quorumkv_storage_queued") == queued);
      }
      HttpResponse<byte[]> refused = single.http.put("/v0/entity?id=refused", "v");
      assertEquals(503, refused.statusCode(), Http.text(refused));
      assertTrue(Http.text(refused).contains("admission.maxQueuedStorage"), Http.text(refused));
      assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
      store[0].openGate();
      for (CompletableFuture<HttpResponse<byte[]>> write : writes) {
        assertEquals(201, write.join().statusCode(), "every queued write completes");
      }
      assertEquals(201, single.http.put("/v0/entity?id=after", "v").statusCode());
    }
  }

  private int startNode(int bound) throws IOException {
    return startNode(bound, 1);
  }

  private int startNode(int bound, int eventLoops) throws IOException {
    JsonObject conf = new JsonObject().put("url", "http://127.0.0.1:0")
        .put("dataDir", NodeProcess.jsonPath(dir.resolve("data"))).put("eventLoops", eventLoops)
        .put("admission", new JsonObject().put("maxRequestsPerLoop", bound));
    node = NodeProcess.launchWithConfig(NodeProcess.writeConf(dir, "node.json", conf.encode()), dir.resolve("node.log"));
    return node.awaitReady(Duration.ofSeconds(60));
  }

  /** A PUT of a 10-byte value whose last 5 bytes are not sent yet: admitted, and in flight until they are. */
  private RawHttp holdPut(int port, String key) throws IOException {
    RawHttp connection = open(port);
    connection.send("PUT /v0/entity?id=" + key + " HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345");
    return connection;
  }

  private RawHttp open(int port) throws IOException {
    RawHttp connection = new RawHttp(port).timeout(10_000);
    connections.add(connection);
    return connection;
  }

  private static String put(String key, String value) {
    return "PUT /v0/entity?id=" + key + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + value.length() + "\r\n\r\n" + value;
  }

  private static String metrics(int port) {
    return Http.text(new Http("http://127.0.0.1:" + port).get("/metrics"));
  }

  private static double gauge(int port, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? ([0-9.]+)$").matcher(metrics(port));
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  private static double shed(int port, String reason) {
    Matcher m = SHED.matcher(metrics(port));
    while (m.find()) {
      if (m.group(1).equals(reason)) {
        return Double.parseDouble(m.group(2));
      }
    }
    return -1;
  }
}
