package io.quorumkv.admission;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.Scrapes;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 42: many clients uploading values at the size limit at once must not take a node down.
 * Nodes at {@code -Xmx128m} (the performance targets' heap) take 16, then 48 uploads of 16 MiB
 * at once: every answer is {@code 201} or {@code 503} with {@code Retry-After}, every {@code 201}
 * reads back whole, {@code /v0/status} answers within a second throughout, and the node serves
 * normally right after. Before the byte budget a node at 256 MiB answered none of 16 such
 * uploads, logged {@code OutOfMemoryError} hundreds of times and never answered again. One test runs at
 * the scripts' default heap instead: a value at the limit read back at once after its write.
 */
@ProcessTier
class UploadOverloadTest {
  private static final int VALUE_BYTES = (int) NodeConfig.DEFAULT_MAX_BODY_BYTES;
  /** The nodes' heap, with their GC pauses in their logs, so that a slow /v0/status can be told from a pause. */
  private static final List<String> SMALL_HEAP = List.of("-Xms128m", "-Xmx128m", "-Xlog:gc:stderr:time");
  /** The heap {@code scripts/lib/node.sh} starts nodes with by default. */
  private static final List<String> DEFAULT_HEAP = List.of("-Xms256m", "-Xmx256m", "-Xlog:gc:stderr:time");
  private static final Duration UPLOAD_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STATUS_DEADLINE = Duration.ofSeconds(1);
  private static final long PROBE_EVERY_MS = 100;
  private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  /** How long a read-back may keep getting 503 while an acknowledged upload's last replica write still holds its bytes. */
  private static final Duration READ_BACK_RETRIES = Duration.ofSeconds(10);
  private static final byte[] VALUE = new byte[VALUE_BYTES];

  static {
    new Random(42).nextBytes(VALUE);
  }

  /** The single node's conf, data and log (a cluster gets a directory of its own). */
  @TempDir
  Path dir;
  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private NodeProcess single;
  private ProcessCluster cluster;

  @AfterEach
  void stop() {
    if (single != null) {
      single.close();
    }
  }

  @Test
  void aSingleNodeShedsTheUploadsItCannotHold() throws Exception {
    startSingle();
    List<Http> nodes = List.of(single.http());
    uploadAtOnce(nodes, 16, "single-16-");
    uploadAtOnce(nodes, 48, "single-48-");
    assertTrue(single.isAlive(), "the node is still running");
  }

  /**
   * 48 clients GET a 16 MiB value at once and read it slowly (a small receive buffer, read only
   * once every answer has come): each answer held on the heap until its client reads it. Every
   * answer is 200 or 503 with Retry-After, the node stays up and answers /v0/status, and every 200
   * carries the whole value. The value was written through the node, so its size is known
   * before it is read (see docs/reliability.md for a node that never saw it).
   */
  @Test
  void aSingleNodeShedsTheDownloadsItCannotHold() throws Exception {
    startSingle();
    assertEquals(201, upload(single.http(), "download").status());
    downloadAtOnce(single.http(), "known size");
  }

  /** One node process at {@link #SMALL_HEAP}, serving. */
  private void startSingle() throws IOException {
    Path conf = NodeProcess.writeConf(dir, "node.json", new JsonObject().put("url", "http://127.0.0.1:0")
        .put("dataDir", NodeProcess.jsonPath(dir.resolve("data"))).encode());
    single = NodeProcess.launchWithConfig(conf, dir.resolve("node.log"), null, SMALL_HEAP);
    single.awaitReady(Duration.ofSeconds(60));
  }

  /**
   * As above through a cluster at 2/3, the value written and read through node 1, which knows its
   * size before reading it. (A node that never saw the value reads it from every replica before
   * it can budget it; a burst of such reads can still exhaust a small heap: docs/reliability.md.)
   */
  @Test
  void aClusterShedsTheDownloadsItCannotHold() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(3).jvmOptions(SMALL_HEAP.toArray(String[]::new))
        .startTimeout(Duration.ofSeconds(120)));
    // Written at 3/3: at 2/3 the third replica's write may still hold the value's bytes in the
    // budget when the downloads come, and they would all get 503 (as they should).
    assertEquals(201, upload(cluster.http(1), "download", "ack=3&from=3").status());
    try {
      downloadAtOnce(cluster.http(1), "through a cluster");
    } catch (AssertionError | IOException failure) {
      keepLogs();
      throw failure;
    }
    for (int node = 0; node < 3; node++) {
      assertTrue(cluster.running(node), "node " + node + " is still running");
    }
  }

  private void downloadAtOnce(Http node, String when) throws Exception {
    int port = URI.create(node.base()).getPort();
    StatusProbe probe = StatusProbe.start(List.of(node), dir);
    List<RawHttp> readers = new ArrayList<>();
    try {
      for (int i = 0; i < 48; i++) {
        RawHttp reader = new RawHttp(port, 16 * 1024).timeout((int) UPLOAD_TIMEOUT.toMillis());
        readers.add(reader);
        reader.send("GET /v0/entity?id=download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      }
      Map<Integer, Integer> statuses = new TreeMap<>();
      for (RawHttp reader : readers) {
        RawHttp.Response head = reader.readHeadOnly();
        statuses.merge(head.status(), 1, Integer::sum);
        int length = Integer.parseInt(head.headers().getOrDefault("content-length", "0"));
        byte[] body = reader.input().readNBytes(length);
        if (head.status() == 200) {
          assertTrue(Arrays.equals(VALUE, body), "a 200 carries the whole value, not " + body.length + " bytes ("
              + length + " declared), first difference at " + Arrays.mismatch(VALUE, body) + "; " + statuses);
        } else {
          assertEquals(503, head.status(), new String(body, java.nio.charset.StandardCharsets.UTF_8));
          assertEquals("1", head.headers().get("retry-after"));
        }
      }
      List<String> slow = probe.stop();
      System.out.printf(Locale.ROOT, "48 slow downloads of %d MiB, %s: %s; slowest /v0/status %d ms%n",
          VALUE_BYTES >> 20, when, statuses, probe.slowestMillis());
      assertTrue(statuses.getOrDefault(200, 0) >= 1, "at least one download is served: " + statuses);
      assertEquals(List.of(), slow, "/v0/status answers within " + STATUS_DEADLINE.toMillis() + " ms");
      assertTrue(Arrays.equals(VALUE, node.get("/v0/entity?id=download").body()), "serves the value after");
    } finally {
      probe.close();
      for (RawHttp reader : readers) {
        reader.close();
      }
    }
  }

  @Test
  void aClusterShedsTheUploadsItCannotHold() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(3).jvmOptions(SMALL_HEAP.toArray(String[]::new))
        .startTimeout(Duration.ofSeconds(120)));
    List<Http> nodes = List.of(cluster.http(0), cluster.http(1), cluster.http(2));
    try {
      uploadAtOnce(nodes, 16, "cluster-16-");
      uploadAtOnce(nodes, 48, "cluster-48-");
    } catch (AssertionError failure) {
      keepLogs();
      throw failure;
    }
    for (int node = 0; node < 3; node++) {
      assertTrue(cluster.running(node), "node " + node + " is still running");
    }
  }

  /**
   * A write answered at ack 2 of 3 goes on to its third replica, holding its value on the heap
   * until that write ends (here: the replica is frozen, so until the replica timeout stores a hint).
   * Its bytes stay in the client bodies' budget until then. Before, they left it with the answer, so
   * a node kept admitting 16 MiB bodies while earlier ones were still on its heap (an
   * {@code OutOfMemoryError} in 1 of 6 runs of the test above under load).
   */
  @Test
  void aLargeWriteHoldsItsBytesUntilItsLastReplicaWriteEnds() throws Exception {
    cluster = clusters.start(new ProcessCluster.Options(3).jvmOptions(SMALL_HEAP.toArray(String[]::new))
        .conf(new JsonObject().put("replicaTimeoutMs", 3_000)).startTimeout(Duration.ofSeconds(120)));
    Http coordinator = cluster.http(0);
    cluster.suspend(2);
    try {
      assertEquals(201, upload(coordinator, "trailing-1", "ack=2&from=3").status(), "acknowledged by two replicas");
      Answer second = upload(coordinator, "trailing-2", "ack=2&from=3");
      assertEquals(503, second.status(), "refused while the first value is still on its way to the frozen replica: "
          + second.body());
      assertEquals("1", second.retryAfter());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      Answer later = second;
      while (later.status() == 503 && System.nanoTime() < deadline) {
        Thread.sleep(Duration.ofSeconds(1).toMillis()); // as Retry-After says
        later = upload(coordinator, "trailing-2", "ack=2&from=3");
      }
      assertEquals(201, later.status(), "taken once the first write's hint is stored: " + later.body());
    } finally {
      cluster.resume(2);
    }
    HttpResponse<byte[]> first = readBack(cluster.http(1), "trailing-1");
    assertEquals(200, first.statusCode());
    assertTrue(Arrays.equals(VALUE, first.body()), "the acknowledged value reads back whole");
  }

  /**
   * Issue 53, item 10: at the scripts' default heap, with nothing else running, a value at the size
   * limit written at 2/3 reads back at once through every node, the one it was written through
   * first: {@code 200} with its bytes, never {@code 503}. Before, the third replica's write still
   * held the coordinator's whole client budget when the read came, and the read got {@code 503}.
   */
  @Test
  void aValueAtTheSizeLimitReadsBackAtOnceThroughEveryNodeAtTheDefaultHeap() throws Exception {
    // A read's replica timeout does not grow with the value it brings back (a write's does): on a
    // loaded machine a 16 MiB answer took more than the default second and the read got 504. This
    // test is about the memory budget, so replicas get time.
    cluster = clusters.start(new ProcessCluster.Options(3).jvmOptions(DEFAULT_HEAP.toArray(String[]::new))
        .conf(new JsonObject().put("replicaTimeoutMs", 10_000)).startTimeout(Duration.ofSeconds(120)));
    List<String> failed = new ArrayList<>();
    for (int writer = 0; writer < 3; writer++) {
      String key = "read-back-" + writer;
      assertEquals(201, upload(cluster.http(writer), key, "ack=2&from=3").status(), key);
      for (int i = 0; i < 3; i++) {
        int reader = (writer + i) % 3;
        HttpResponse<byte[]> read = cluster.http(reader).get("/v0/entity?id=" + key);
        if (read.statusCode() != 200 || !Arrays.equals(VALUE, read.body())) {
          failed.add(key + " written through node " + writer + ", read through node " + reader + ": "
              + read.statusCode() + (read.statusCode() == 200 ? " with other bytes" : " " + Http.text(read)));
        }
      }
    }
    assertEquals(List.of(), failed, "every read of a value just written answers 200 with its bytes");
  }

  /** For a failure's message: each cluster node's longest GC pause, from its log (empty for a single node). */
  private String gcPausesOf(List<Http> nodes) {
    if (cluster == null) {
      return "";
    }
    StringBuilder pauses = new StringBuilder("; longest GC pause by node:");
    for (int node = 0; node < nodes.size(); node++) {
      double longest = 0;
      for (String line : cluster.log(node).split("\n")) {
        int ms = line.lastIndexOf("ms");
        int space = line.lastIndexOf(' ', ms);
        if (line.contains("Pause") && ms > space && space >= 0) {
          longest = Math.max(longest, Double.parseDouble(line.substring(space + 1, ms)));
        }
      }
      pauses.append(' ').append(cluster.url(node)).append('=').append(Math.round(longest)).append(" ms");
    }
    return pauses.toString();
  }

  private void keepLogs() throws IOException {
    Path kept = Files.createDirectories(Path.of("target", "upload-overload-logs"));
    for (int node = 0; node < 3; node++) {
      Files.writeString(kept.resolve("node-" + node + ".log"), cluster.log(node));
    }
  }

  /** Sends {@code uploads} PUTs of VALUE at once, spread over the nodes, and checks what the issue asks. */
  private void uploadAtOnce(List<Http> nodes, int uploads, String prefix) throws Exception {
    ExecutorService senders = Executors.newFixedThreadPool(uploads);
    StatusProbe probe = StatusProbe.start(nodes, dir);
    List<Future<Answer>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < uploads; i++) {
        Http node = nodes.get(i % nodes.size());
        String key = prefix + i;
        // Half the clients ask for 100 Continue first, as curl does for large bodies, half send at once.
        boolean expecting = i % 2 == 0;
        answers.add(senders.submit(() -> expecting ? uploadExpectingContinue(node, key) : upload(node, key)));
      }
      Map<Integer, Integer> statuses = new TreeMap<>();
      List<Integer> stored = new ArrayList<>();
      for (int i = 0; i < uploads; i++) {
        Answer answer = answers.get(i).get();
        statuses.merge(answer.status(), 1, Integer::sum);
        if (answer.status() == 201) {
          stored.add(i);
        } else if (answer.status() == 503) {
          assertEquals("1", answer.retryAfter(), "a 503 says when to retry");
        } else {
          fail(prefix + i + " answered " + answer.status() + ": " + answer.body());
        }
      }
      List<String> slow = probe.stop();
      System.out.printf(Locale.ROOT, "%s%d uploads of %d MiB: %s; slowest /v0/status %d ms%n", prefix, uploads,
          VALUE_BYTES >> 20, statuses, probe.slowestMillis());
      assertTrue(!stored.isEmpty(), "at least one upload is taken: " + statuses);
      assertEquals(List.of(), slow, "/v0/status answers within " + STATUS_DEADLINE.toMillis() + " ms"
          + gcPausesOf(nodes));
      // Reads back once every node's trailing replica writes have ended (their bytes leave the client
      // budget): a 16 MiB read at from=3 holds about five copies on its coordinator, which a 128 MiB heap
      // holds only alone (docs/reliability.md). Reads during those writes, refused with 503, are
      // aLargeWriteHoldsItsBytesUntilItsLastReplicaWriteEnds's to check.
      Await.until("every node's trailing replica writes have ended", Duration.ofSeconds(30),
          () -> nodes.stream().allMatch(node -> Scrapes.value(Http.text(node.get("/metrics")),
              "quorumkv_admission_bytes{budget=\"client\"}") == 0));
      for (int i : stored) {
        HttpResponse<byte[]> read = readBack(nodes.get((i + 1) % nodes.size()), prefix + i);
        assertEquals(200, read.statusCode(), prefix + i + " was acknowledged");
        assertTrue(Arrays.equals(VALUE, read.body()), prefix + i + " reads back whole");
      }
      for (Http node : nodes) {
        assertEquals(201, node.put("/v0/entity?id=" + prefix + "after", "small").statusCode(), "serves writes after");
        assertEquals("small", Http.text(node.get("/v0/entity?id=" + prefix + "after")));
      }
    } finally {
      probe.close();
      senders.shutdownNow();
    }
  }

  /**
   * Reads a key as a client that honours {@code Retry-After} does: a value still being written to
   * its last replica (after its 201) holds its bytes in the node's budget, and a large read meanwhile
   * gets 503 (docs/reliability.md).
   */
  private static HttpResponse<byte[]> readBack(Http node, String key) throws InterruptedException {
    long deadline = System.nanoTime() + READ_BACK_RETRIES.toNanos();
    HttpResponse<byte[]> read = node.get("/v0/entity?id=" + key);
    while (read.statusCode() == 503 && System.nanoTime() < deadline) {
      assertEquals("1", read.headers().firstValue("Retry-After").orElse(null), "a 503 says when to retry");
      Thread.sleep(Duration.ofSeconds(1).toMillis()); // as Retry-After says
      read = node.get("/v0/entity?id=" + key);
    }
    return read;
  }

  private record Answer(int status, String retryAfter, String body) {
  }

  private static Answer upload(Http node, String key) throws IOException, InterruptedException {
    return upload(node, key, null);
  }

  private static Answer upload(Http node, String key, String quorum) throws IOException, InterruptedException {
    String query = "/v0/entity?id=" + key + (quorum == null ? "" : "&" + quorum);
    HttpResponse<String> answer = CLIENT.send(HttpRequest.newBuilder(URI.create(node.base() + query))
        .timeout(UPLOAD_TIMEOUT).PUT(HttpRequest.BodyPublishers.ofByteArray(VALUE)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(answer.statusCode(), answer.headers().firstValue("Retry-After").orElse(null), answer.body());
  }

  /**
   * Sends the headers with {@code Expect: 100-continue} and the body only once the node says
   * {@code 100 Continue} (over a plain socket: the JDK 17 client waits forever for a final answer
   * that comes instead of the 100).
   */
  private static Answer uploadExpectingContinue(Http node, String key) throws IOException {
    int port = URI.create(node.base()).getPort();
    try (RawHttp http = new RawHttp(port).timeout((int) UPLOAD_TIMEOUT.toMillis())) {
      http.send("PUT /v0/entity?id=" + key + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + VALUE.length
          + "\r\nExpect: 100-continue\r\n\r\n");
      RawHttp.Response head = http.readHeadOnly();
      if (head.status() == 100) {
        http.send(VALUE);
        RawHttp.Response answer = http.readResponse();
        return new Answer(answer.status(), answer.headers().get("retry-after"), answer.bodyText());
      }
      int length = Integer.parseInt(head.headers().getOrDefault("content-length", "0"));
      String body = new String(http.input().readNBytes(length), java.nio.charset.StandardCharsets.UTF_8);
      return new Answer(head.status(), head.headers().get("retry-after"), body);
    }
  }

  /**
   * Asks every node for /v0/status 10 times a second while the uploads run, from a curl process
   * of its own: the node is timed as an outside client sees it, not through this JVM's threads,
   * which the test's 48 senders keep busy. The nodes' answers are timed by curl ({@code time_total}).
   */
  private static final class StatusProbe implements AutoCloseable {
    private static final int MAX_PROBES_PER_NODE = 3_000;
    private final Process curl;
    private final Path output;
    private final int nodes;
    private long slowest;

    private StatusProbe(Process curl, Path output, int nodes) {
      this.curl = curl;
      this.output = output;
      this.nodes = nodes;
    }

    static StatusProbe start(List<Http> nodes, Path dir) throws IOException {
      Path urls = Files.createTempFile(dir, "status-probe", ".conf");
      StringBuilder conf = new StringBuilder();
      for (int i = 0; i < MAX_PROBES_PER_NODE; i++) {
        for (Http node : nodes) {
          conf.append("url = \"").append(node.base()).append("/v0/status\"\n");
        }
      }
      Files.writeString(urls, conf);
      Path output = Files.createTempFile(dir, "status-probe", ".txt");
      Process curl = new ProcessBuilder("curl", "-s", "-K", urls.toString(), "--rate",
          (1000 / PROBE_EVERY_MS * nodes.size()) + "/s", "--max-time", "5",
          "-w", "PROBE %{url} %{http_code} %{time_total}\n").redirectErrorStream(true)
          .redirectOutput(output.toFile()).start();
      return new StatusProbe(curl, output, nodes.size());
    }

    /** Stops probing, once every node was asked at least once; the answers that were not a 200 within the deadline. */
    List<String> stop() throws IOException, InterruptedException {
      Await.until("every node answers the probe once", Duration.ofSeconds(30), () -> probes() >= nodes);
      close();
      List<String> slow = new ArrayList<>();
      for (String line : Files.readAllLines(output)) {
        if (!line.startsWith("PROBE ")) {
          continue;
        }
        String[] fields = line.split(" ");
        long millis = Math.round(Double.parseDouble(fields[3]) * 1000);
        slowest = Math.max(slowest, millis);
        if (!fields[2].equals("200") || millis > STATUS_DEADLINE.toMillis()) {
          slow.add(fields[1] + ": " + fields[2] + " in " + millis + " ms");
        }
      }
      return slow;
    }

    private long probes() {
      try {
        return Files.readAllLines(output).stream().filter(line -> line.startsWith("PROBE ")).count();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    long slowestMillis() {
      return slowest;
    }

    @Override
    public void close() throws InterruptedException {
      curl.destroy();
      curl.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
