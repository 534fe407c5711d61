package io.quorumkv.admin;

import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.Scrapes;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JFR recording sessions over HTTP, the admin token, and the Prometheus endpoint, on a real node. */
class AdminApiTest {
  private static final String TOKEN = "let-me-in";
  private static final String[] AUTH = {"Authorization", "Bearer " + TOKEN};

  @TempDir
  static Path dataDir;
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    // One event loop: admin requests that wait behind each other then all share one loop's context.
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("adminToken", TOKEN).put("eventLoops", 1)),
        InstantSource.system());
    http = node.http;
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void adminRequestsNeedTheToken() {
    HttpResponse<byte[]> none = http.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody());
    assertEquals(401, none.statusCode());
    HttpResponse<byte[]> wrong = http.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
        "Authorization", "Bearer nope");
    assertEquals(401, wrong.statusCode(), "an unknown token is unauthenticated, as none");
    HttpResponse<byte[]> startWithout = http.send("POST", "/admin/jfr?name=sneaky", HttpRequest.BodyPublishers.noBody());
    assertEquals(401, startWithout.statusCode());
    assertEquals(200, admin("GET", "/admin/jfr").statusCode());
    assertTrue(!text(admin("GET", "/admin/jfr")).contains("sneaky"), "a refused start started nothing");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bearer " + TOKEN, "BEARER " + TOKEN, "bEaReR  " + TOKEN})
  void theAuthorizationSchemeMatchesInAnyCase(String authorization) {
    HttpResponse<byte[]> response = http.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
        "Authorization", authorization);
    assertEquals(200, response.statusCode(), authorization + ": " + text(response));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Basic " + TOKEN, "Bearer", "Bearer ", "Bearer" + TOKEN, TOKEN})
  void anotherSchemeOrNoTokenIs401(String authorization) {
    HttpResponse<byte[]> response = http.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
        "Authorization", authorization);
    assertEquals(401, response.statusCode(), authorization + ": " + text(response));
  }

  @Test
  void recordingLifecycleFromStartToFlameGraphs() {
    HttpResponse<byte[]> started = admin("POST", "/admin/jfr?name=session1&duration=120000&settings=profile");
    assertEquals(201, started.statusCode(), text(started));
    assertEquals("running", new JsonObject(text(started)).getString("state"));

    // JFR samples threads in Java every 10 ms: load until its CPU samples caught the node's request path.
    Await.until("the running recording's CPU graph names the request path", Await.TIMEOUT, () -> {
      load(1_000);
      return namesRequestPath(flameFrames("session1", "cpu"));
    }, () -> "its frames: " + flameFrames("session1", "cpu"));

    JsonArray listed = new JsonArray(text(admin("GET", "/admin/jfr")));
    assertTrue(listed.stream().anyMatch(r -> "session1".equals(((JsonObject) r).getString("name"))), listed.encode());

    HttpResponse<byte[]> stopped = admin("POST", "/admin/jfr/stop?name=session1");
    assertEquals(200, stopped.statusCode(), text(stopped));
    assertTrue(!"running".equals(new JsonObject(text(stopped)).getString("state")));

    HttpResponse<byte[]> file = admin("GET", "/admin/jfr/file?name=session1");
    assertEquals(200, file.statusCode());
    assertTrue(file.body().length > 10_000, "recording of " + file.body().length + " bytes");
    byte[] magic = new byte[4];
    System.arraycopy(file.body(), 0, magic, 0, 4);
    assertArrayEquals(new byte[] {'F', 'L', 'R', 0}, magic, "a JFR file starts with FLR\\0");

    for (String type : new String[] {"cpu", "alloc", "lock", "wall"}) {
      HttpResponse<byte[]> flame = admin("GET", "/admin/jfr/flame?name=session1&type=" + type);
      assertEquals(200, flame.statusCode(), type);
      assertTrue(flame.headers().firstValue("content-type").orElse("").startsWith("text/html"));
      assertFalse(FlameGraphPage.frameNames(text(flame)).isEmpty(), "the " + type + " flame graph has no frames");
    }
    assertTrue(namesRequestPath(flameFrames("session1", "cpu")), "the stopped recording's CPU graph names the request path");
    assertTrue(namesRequestPath(flameFrames("session1", "wall")), "the wall graph names the request path");
    assertTrue(flameFrames("session1", "alloc").stream().anyMatch(frame -> frame.startsWith("io.quorumkv.")),
        "the allocation flame graph names our classes");
  }

  /** Whether some frame is the node's HTTP request handling (the test's own client is in io.quorumkv.support). */
  private static boolean namesRequestPath(List<String> frames) {
    return frames.stream().anyMatch(frame -> frame.startsWith("io.quorumkv.http."));
  }

  private static List<String> flameFrames(String name, String type) {
    HttpResponse<byte[]> flame = admin("GET", "/admin/jfr/flame?name=" + name + "&type=" + type);
    assertEquals(200, flame.statusCode(), type + ": " + text(flame));
    return FlameGraphPage.frameNames(text(flame));
  }

  private static void load(int requests) {
    for (int i = 0; i < requests; i++) {
      http.putEntity("load-" + (i % 200), "value-" + i);
      http.get("/v0/entity?id=load-" + (i % 200));
    }
  }

  @Test
  void badRequestsAreClean4xx() {
    assertEquals(400, admin("POST", "/admin/jfr?name=bad/name").statusCode());
    assertEquals(400, admin("POST", "/admin/jfr?name=x&settings=fast").statusCode());
    assertEquals(400, admin("POST", "/admin/jfr?name=x&duration=-1").statusCode());
    assertEquals(404, admin("POST", "/admin/jfr/stop?name=never-started").statusCode());
    assertEquals(404, admin("GET", "/admin/jfr/file?name=never-started").statusCode());
    assertEquals(400, admin("GET", "/admin/jfr/flame?name=x&type=heat").statusCode());
  }

  @Test
  void clusterScopeRunsOnASingleNodeToo() {
    HttpResponse<byte[]> started = admin("POST", "/admin/jfr?name=solo&duration=120000&scope=cluster");
    assertEquals(202, started.statusCode(), text(started));
    assertEquals(new JsonObject().put("action", "start").put("name", "solo").put("durationMs", 120000)
        .put("settings", "profile"), new JsonObject(text(started)).getJsonObject("published"),
        "the published command, its duration a number and its settings the default's name");
    Await.until("the published start ran here", Await.TIMEOUT, () -> "running".equals(stateOf("solo")));
    HttpResponse<byte[]> stopped = admin("POST", "/admin/jfr/stop?name=solo&scope=cluster");
    assertEquals(202, stopped.statusCode(), text(stopped));
    assertEquals(new JsonObject().put("action", "stop").put("name", "solo"),
        new JsonObject(text(stopped)).getJsonObject("published"));
    Await.until("the published stop ran here", Await.TIMEOUT, () -> !"running".equals(stateOf("solo")));
  }

  @Test
  void clusterScopeRefusesBadParametersBeforePublishing() {
    for (String bad : new String[] {"duration=-1", "duration=abc", "duration=3600001", "settings=fast", "name=bad/name"}) {
      HttpResponse<byte[]> response = admin("POST", "/admin/jfr?" + bad + "&name=refused&scope=cluster");
      assertEquals(400, response.statusCode(), bad + ": " + text(response));
    }
    assertEquals(400, admin("POST", "/admin/jfr/stop?name=bad/name&scope=cluster").statusCode());
    // Commands run in the order they were published: once a later one ran, a refused one would have too.
    assertEquals(202, admin("POST", "/admin/jfr?name=probe&duration=120000&scope=cluster").statusCode());
    Await.until("the probe ran", Await.TIMEOUT, () -> "running".equals(stateOf("probe")));
    assertNull(stateOf("refused"), "a refused command was published anyway");
    assertEquals(200, admin("POST", "/admin/jfr/stop?name=probe").statusCode());
  }

  @ParameterizedTest
  @CsvSource({"DELETE, /admin/jfr, 'GET, POST'", "PUT, /admin/jfr/, 'GET, POST'", "GET, /admin/jfr/stop, POST",
      "POST, /admin/jfr/file, GET", "DELETE, /admin/jfr/flame, GET", "HEAD, /admin/jfr/flame, GET"})
  void otherMethodsOnAdminPathsAre405WithAllow(String method, String path, String allowed) {
    HttpResponse<byte[]> response = admin(method, path);
    assertEquals(405, response.statusCode(), method + " " + path);
    assertEquals(allowed, response.headers().firstValue("allow").orElse(null), method + " " + path);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/admin/jfrfoo", "/admin/jfr/nope", "/admin/jfr/stop/now", "/admin/jfr.json", "/admin"})
  void unknownPathsUnderAdminAre400WithTheTokenAnd401Without(String path) {
    for (HttpResponse<byte[]> response : List.of(admin("POST", path), admin("GET", path))) {
      assertEquals(400, response.statusCode(), path);
      assertEquals("unknown path " + path, text(response).strip());
    }
    // Authentication comes first: a client without the token cannot tell which admin paths exist.
    assertEquals(401, http.send("GET", path, HttpRequest.BodyPublishers.noBody()).statusCode(), path);
  }

  @Test
  void prometheusEndpointExposesTheNamedSeries() {
    http.putEntity("metered", "v");
    http.get("/v0/entity?id=metered");
    http.get("/v0/entity?id=not-there");
    String metrics = text(http.get("/metrics"));
    for (String series : new String[] {
        "vertx_http_server_requests_total{code=\"201\",method=\"PUT\",route=\"/v0/entity\"}",
        "vertx_http_server_requests_total{code=\"404\",method=\"GET\",route=\"/v0/entity\"}",
        "vertx_http_server_response_time_seconds",
        // Buckets, from which the dashboard takes p50 and p99 over a window.
        "vertx_http_server_response_time_seconds_bucket{code=\"201\",method=\"PUT\",route=\"/v0/entity\",le=\"1.0E-4\"}",
        "vertx_http_server_response_time_seconds_bucket{code=\"201\",method=\"PUT\",route=\"/v0/entity\",le=\"+Inf\"}",
        "quorumkv_storage_seconds_count{op=\"get\"}",
        "quorumkv_storage_seconds_count{op=\"apply\"}",
        "quorumkv_replica_calls_total{outcome=\"ok\"}",
        "quorumkv_not_enough_replicas_total",
        "quorumkv_read_repairs_total",
        "quorumkv_hints_dropped_total",
        "quorumkv_rocksdb_cur_size_all_mem_tables",
        "quorumkv_rocksdb_block_cache_hits_total",
        "quorumkv_rocksdb_block_cache_usage_bytes",
        "quorumkv_rocksdb_estimate_pending_compaction_bytes",
        "quorumkv_rocksdb_row_cache_hits_total",
        "quorumkv_storage_memory_reads_total"}) {
      assertTrue(metrics.contains(series), "missing " + series);
    }
    // Both reads (the record just written, and a key never written) were answered from memory.
    assertTrue(Scrapes.value(metrics, "quorumkv_storage_memory_reads_total") >= 2, metrics);
  }

  @Test
  void concurrentDownloadsOfARunningRecordingEachGetAWholeFileAndLeaveNoneBehind() throws Exception {
    assertEquals(201, admin("POST", "/admin/jfr?name=shared&duration=120000").statusCode());
    ExecutorService clients = Executors.newFixedThreadPool(8);
    try {
      List<Future<HttpResponse<byte[]>>> files = new ArrayList<>();
      List<Future<HttpResponse<byte[]>>> flames = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        files.add(clients.submit(() -> admin("GET", "/admin/jfr/file?name=shared")));
        flames.add(clients.submit(() -> admin("GET", "/admin/jfr/flame?name=shared")));
      }
      for (Future<HttpResponse<byte[]>> file : files) {
        HttpResponse<byte[]> response = file.get(60, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), text(response));
        assertEquals("attachment; filename=\"shared.snapshot.jfr\"",
            response.headers().firstValue("content-disposition").orElse(null));
        Path copy = Files.write(dataDir.resolve("downloaded.jfr"), response.body());
        assertFalse(RecordingFile.readAllEvents(copy).isEmpty(), "a whole JFR file with events");
      }
      for (Future<HttpResponse<byte[]>> flame : flames) {
        HttpResponse<byte[]> response = flame.get(60, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), text(response));
        assertTrue(text(response).contains("</html>"), "a whole flame graph page");
      }
    } finally {
      clients.shutdownNow();
      admin("POST", "/admin/jfr/stop?name=shared");
    }
    // Snapshots and their pages are the requests' own files: none stays once the answers went out.
    Await.until("the downloads' own files are deleted", Await.TIMEOUT, () -> recordingFiles().stream()
        .noneMatch(name -> name.startsWith("shared.") && !name.matches("shared\\.\\d+\\.jfr")));
  }

  /**
   * Recordings of one name stop (JFR then writes their file) and start again while downloads and
   * flame graphs of that name run: every answer is a whole file, or a 404 or 409, never a 500.
   */
  @Test
  void downloadsWhileRecordingsOfTheirNameStopAndStartAreNever500() throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    ExecutorService readers = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<String>>> problems = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String path = i % 2 == 0 ? "/admin/jfr/file?name=cycle" : "/admin/jfr/flame?name=cycle&type=wall";
        problems.add(readers.submit(() -> {
          List<String> seen = new ArrayList<>();
          while (System.nanoTime() < end) {
            HttpResponse<byte[]> response = admin("GET", path);
            if (response.statusCode() >= 500) {
              seen.add(path + ": " + response.statusCode() + " " + text(response).strip());
            } else if (response.statusCode() == 200 && path.contains("/file")) {
              Path copy = Files.write(Files.createTempFile(dataDir, "download", ".jfr"), response.body());
              try {
                RecordingFile.readAllEvents(copy);
              } catch (IOException e) {
                seen.add(path + ": 200 with a broken file (" + e + ")");
              } finally {
                Files.delete(copy);
              }
            }
          }
          return seen;
        }));
      }
      while (System.nanoTime() < end) {
        int status = admin("POST", "/admin/jfr?name=cycle&settings=default&duration=" + (50 + System.nanoTime() % 200))
            .statusCode();
        assertTrue(status == 201 || status == 409, "start answered " + status);
        if (System.nanoTime() % 3 == 0) {
          admin("POST", "/admin/jfr/stop?name=cycle");
        }
      }
      List<String> all = new ArrayList<>();
      for (Future<List<String>> seen : problems) {
        all.addAll(seen.get(60, TimeUnit.SECONDS));
      }
      assertEquals(List.of(), all);
    } finally {
      readers.shutdownNow();
    }
  }

  @Test
  void malformedPercentEscapesInAdminQueriesAre400() throws IOException {
    for (String target : new String[] {"GET /admin/jfr/file?name=%zz", "GET /admin/jfr/flame?name=%zz",
        "GET /admin/jfr/flame?name=x&type=%zz", "POST /admin/jfr?name=%zz", "POST /admin/jfr/stop?name=%zz",
        "GET /admin/jfr/file?name=%"}) {
      String[] methodAndPath = target.split(" ");
      RawHttp.Response response = RawHttp.exchange(node.port(), methodAndPath[0] + " " + methodAndPath[1]
          + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\nContent-Length: 0\r\n\r\n");
      assertEquals(400, response.status(), target + ": " + response.bodyText());
      assertEquals("malformed query string (bad percent-encoding)\n", response.bodyText(), target);
    }
  }

  @Test
  void cheapAdminCallsDoNotWaitBehindSlowConversions() throws Exception {
    assertEquals(201, admin("POST", "/admin/jfr?name=slow&duration=120000&settings=profile").statusCode());
    int conversions = 20;
    List<CompletableFuture<HttpResponse<byte[]>>> flames = new ArrayList<>();
    try {
      for (int i = 0; i < conversions; i++) {
        flames.add(CompletableFuture.supplyAsync(() -> admin("GET", "/admin/jfr/flame?name=slow&type=alloc")));
      }
      CompletableFuture.anyOf(flames.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
      // The other conversions are under way or queued now; a list, a start and a stop must not wait for them.
      for (String call : new String[] {"GET /admin/jfr", "POST /admin/jfr?name=quick&duration=60000",
          "POST /admin/jfr/stop?name=quick"}) {
        String[] methodAndPath = call.split(" ");
        HttpResponse<byte[]> answer = admin(methodAndPath[0], methodAndPath[1]);
        assertTrue(answer.statusCode() < 300, call + ": " + text(answer));
        long waiting = flames.stream().filter(flame -> !flame.isDone()).count();
        assertTrue(waiting > 0, call + " answered only after every queued conversion");
      }
    } finally {
      CompletableFuture.allOf(flames.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
      admin("POST", "/admin/jfr/stop?name=slow");
    }
    flames.forEach(flame -> assertEquals(200, flame.join().statusCode()));
  }

  @Test
  void unknownMethodsShareOneMetricsLabel() throws IOException {
    for (int i = 0; i < 40; i++) {
      RawHttp.exchange(node.port(), "FUZZ" + i + " /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    http.get("/metrics"); // the scrape's own series are there from the second one on
    String before = text(http.get("/metrics"));
    for (int i = 40; i < 240; i++) {
      RawHttp.exchange(node.port(), "FUZZ" + i + " /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    String after = text(http.get("/metrics"));
    assertFalse(after.contains("FUZZ"), "a request's own method became a label value");
    assertTrue(after.contains("method=\"OTHER\""), "unknown methods are counted as OTHER");
    assertEquals(series(before), series(after), "200 more unknown methods added series");
  }

  @Test
  void requestsAnsweredBeforeRoutingAreCountedWithoutARoute() throws IOException {
    RawHttp.exchange(node.port(), "GET /v0/status HTTP/9.9\r\nHost: x\r\n\r\n");
    http.putEntity("routed", "v");
    String metrics = text(http.get("/metrics"));
    assertEquals(1.0, Scrapes.value(metrics, "vertx_http_server_requests_total{code=\"505\",method=\"GET\",route=\"\"}"));
    assertTrue(Scrapes.value(metrics, "vertx_http_server_response_time_seconds_count{code=\"201\",method=\"PUT\",route=\"/v0/entity\"}")
        >= 1, metrics);
  }

  /** The series of a Prometheus scrape, whatever their values. */
  private static List<String> series(String scrape) {
    return scrape.lines().filter(line -> !line.startsWith("#") && !line.isBlank())
        .map(line -> line.substring(0, line.lastIndexOf(' '))).sorted().toList();
  }

  private static List<String> recordingFiles() {
    try (Stream<Path> files = Files.list(dataDir.resolve("recordings"))) {
      return files.map(file -> file.getFileName().toString()).toList();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The state of this node's recording of that name, or null if it has none. */
  private static String stateOf(String name) {
    return new JsonArray(text(admin("GET", "/admin/jfr"))).stream().map(JsonObject.class::cast)
        .filter(recording -> name.equals(recording.getString("name")))
        .map(recording -> recording.getString("state")).findFirst().orElse(null);
  }

  /**
   * A client that leaves while its export is being made gets nothing sent, and the file made for it
   * is deleted: Vert.x's {@code sendFile} on a connection already closed threw inside Vert.x and left
   * the file behind (seen by {@code RequestFuzzTest}).
   */
  @Test
  void anExportWhoseClientLeftIsDeletedUnsent() throws Exception {
    assertEquals(201, admin("POST", "/admin/jfr?name=leaver&duration=120000").statusCode());
    Path recordings = dataDir.resolve("recordings");
    try {
      for (int i = 0; i < 5; i++) {
        for (String export : new String[] {"/admin/jfr/flame?name=leaver&type=cpu", "/admin/jfr/file?name=leaver"}) {
          try (RawHttp raw = new RawHttp(node.port())) {
            raw.send("GET " + export + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n");
          }
        }
      }
      // Two more, answered one after the other: by then the export pool (two threads, first come first
      // served) has started every abandoned export, each with its file made.
      assertEquals(200, admin("GET", "/admin/jfr/flame?name=leaver&type=cpu").statusCode());
      assertEquals(200, admin("GET", "/admin/jfr/file?name=leaver").statusCode());
      Await.until("no export left in " + recordings, java.time.Duration.ofSeconds(10),
          () -> exportsIn(recordings).isEmpty(), () -> "left: " + exportsIn(recordings));
    } finally {
      admin("POST", "/admin/jfr/stop?name=leaver");
    }
  }

  /** The files made for exports of the "leaver" recording (its own recording file aside). */
  private static List<String> exportsIn(Path recordings) {
    try (Stream<Path> files = Files.list(recordings)) {
      return files.map(file -> file.getFileName().toString())
          .filter(name -> name.startsWith("leaver.") && (name.endsWith(".html") || name.endsWith(".snapshot.jfr")))
          .toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static HttpResponse<byte[]> admin(String method, String path) {
    return http.send(method, path, HttpRequest.BodyPublishers.noBody(), AUTH);
  }
}
