package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RawHttp;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static io.quorumkv.support.Http.encode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The cluster-wide range ({@code scope=cluster}), black-box: three node processes with small
 * heaps, keys written at {@code ack=1&from=1} through random nodes (so each node holds only its
 * share), keys with copies on every node that one replica then overwrote, deleted or let
 * expire, a range several times a node's heap read slowly, and nodes killed before and during a
 * range. Anti-entropy is off (an hour's interval), so stale copies stay stale and only the merge
 * can pick the freshest version. A cluster secret is set, so the nodes' range streams carry it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ProcessTier
class ClusterRangeTest {
  private static final int KEYS = 100_000;
  /** Set, so that the nodes' range streams must carry it. */
  private static final String SECRET = "range-test-secret";
  private static final int SHARED_KEYS = 3_000;
  private static final long TTL_MS = 1_500;
  private static final String HEAP = "64m";
  private static final int BIG_RECORDS = 2_400;
  private static final int BIG_VALUE_BYTES = 100_000;
  private static final long SLOW_READ_BYTES_PER_SECOND = 1_000_000;
  private static final Duration SLOW_READ = Duration.ofSeconds(12);
  /** Old-generation growth allowed while the slow client reads: a fraction of what a node's share (~100 MB) would take. */
  private static final long OLD_GEN_GROWTH_BOUND = 16L << 20;
  private static final Comparator<String> BY_UTF8 = (a, b) ->
      Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static ProcessCluster cluster;
  static Random random;
  static boolean bigRangeWritten;

  @BeforeAll
  static void startCluster() throws IOException {
    long seed = System.nanoTime();
    System.out.println("ClusterRangeTest: seed " + seed);
    random = new Random(seed);
    JsonObject conf = new JsonObject()
        .put("replicaTimeoutMs", 10_000)
        .put("clusterSecret", SECRET)
        .put("antiEntropy", new JsonObject().put("intervalMs", 3_600_000));
    cluster = clusters.start(new ProcessCluster.Options(3).conf(conf)
        .jvmOptions("-Xms" + HEAP, "-Xmx" + HEAP).startTimeout(Duration.ofSeconds(150)));
  }

  @Test
  @Order(1)
  void theClusterRangeThroughEveryNodeIsEveryLiveKeyOnceWithItsLatestValueSorted() throws Exception {
    requireAllRunning();
    Map<String, String> expected = new TreeMap<>(BY_UTF8);
    long started = System.nanoTime();

    // Round 1: most keys get one copy; the shared ones one on every node; some expire soon.
    List<Op> round1 = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      String key = key(i);
      String value = "v1-" + i;
      if (i < SHARED_KEYS) {
        round1.add(Op.put(key, value, "ack=3&from=3"));
        expected.put(key, value);
      } else if (i % 50 == 1) {
        round1.add(Op.put(key, value, "ack=1&from=1&ttl=" + TTL_MS));
      } else {
        round1.add(Op.put(key, value, "ack=1&from=1"));
        expected.put(key, value);
      }
    }
    send(round1);

    // Round 2, after round 1 was acknowledged: one replica of some keys gets a newer version. Half
    // the shared keys change on one replica only, so the other nodes keep stale live copies.
    List<Op> round2 = new ArrayList<>();
    for (int i = 0; i < SHARED_KEYS; i += 2) {
      String key = key(i);
      switch (i % 6) {
        case 0 -> {
          round2.add(Op.put(key, "v2-" + i, "ack=1&from=1"));
          expected.put(key, "v2-" + i);
        }
        case 2 -> {
          round2.add(Op.delete(key, "ack=1&from=1"));
          expected.remove(key);
        }
        default -> {
          round2.add(Op.put(key, "v2-" + i, "ack=1&from=1&ttl=" + TTL_MS)); // the newest version expires
          expected.remove(key);
        }
      }
    }
    List<Integer> others = new ArrayList<>();
    for (int i = SHARED_KEYS; i < KEYS; i++) {
      if (i % 50 != 1) { // an expiring key stays as it is
        others.add(i);
      }
    }
    Collections.shuffle(others, random);
    for (int n = 0; n < 10_000; n++) {
      int i = others.get(n);
      if (n % 5 == 0) {
        round2.add(Op.delete(key(i), "ack=1&from=1"));
        expected.remove(key(i));
      } else {
        round2.add(Op.put(key(i), "v2-" + i, "ack=1&from=1"));
        expected.put(key(i), "v2-" + i);
      }
    }
    send(round2);
    System.out.printf("ClusterRangeTest: %d writes and %d overwrites or deletes in %d ms%n", round1.size(),
        round2.size(), (System.nanoTime() - started) / 1_000_000);
    long expiredAt = System.nanoTime() + TTL_MS * 1_000_000;
    Await.until("the records written with a ttl have expired", Duration.ofMillis(TTL_MS + 1_000),
        () -> System.nanoTime() > expiredAt);

    List<String> wanted = expected.entrySet().stream().map(e -> e.getKey() + "\n" + e.getValue()).toList();
    for (int node = 0; node < 3; node++) {
      long start = System.nanoTime();
      List<String> got = rangeChunks(node, "start=" + encode("r-") + "&end=" + encode("r.") + "&scope=cluster");
      System.out.printf("ClusterRangeTest: cluster range through node %d: %d records in %d ms%n", node, got.size(),
          (System.nanoTime() - start) / 1_000_000);
      assertSameListing(wanted, got, "cluster range through node " + node);
    }
    int local = 0;
    int stale = 0;
    for (int node = 0; node < 3; node++) {
      List<String> held = rangeChunks(node, "start=" + encode("r-") + "&end=" + encode("r."));
      assertTrue(held.size() < wanted.size() / 2,
          "node " + node + " holds " + held.size() + " of " + wanted.size() + " live keys");
      local += held.size();
      for (String record : held) {
        int newline = record.indexOf('\n');
        if (!record.substring(newline + 1).equals(expected.get(record.substring(0, newline)))) {
          stale++;
        }
      }
    }
    assertTrue(local > wanted.size(), "the node-local ranges hold every key at least once: " + local);
    // What the merge had to hide: old values, deleted and expired keys still live on other nodes.
    assertTrue(stale >= SHARED_KEYS / 2, "only " + stale + " stale copies in the node-local ranges");
  }

  @Test
  @Order(2)
  void scopeNodeIsTheDefaultAnyOtherScopeIs400AndTheInternalStreamNeedsTheSecret() throws Exception {
    requireAllRunning();
    HttpResponse<byte[]> unauthorized = cluster.http(1).get("/internal/v0/range?start=r-");
    assertEquals(403, unauthorized.statusCode(), Http.text(unauthorized));
    String range = "start=" + encode("r-00010") + "&end=" + encode("r-00020");
    assertEquals(rangeChunks(0, range), rangeChunks(0, range + "&scope=node"));
    for (String scope : List.of("", "nodes", "CLUSTER", "all")) {
      HttpResponse<byte[]> answer = cluster.http(0).get("/v0/entities?" + range + "&scope=" + scope);
      assertEquals(400, answer.statusCode(), "scope=" + scope);
      assertTrue(answer.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
      assertTrue(Http.text(answer).contains("scope"), Http.text(answer));
    }
  }

  @Test
  @Order(3)
  void aSlowClientLeavesEveryNodesHeapFlatAndPausesEveryScan() throws Exception {
    requireAllRunning();
    writeBigRange();
    long[] scannedBefore = new long[3];
    long[] oldGenBefore = new long[3];
    for (int node = 0; node < 3; node++) {
      scannedBefore[node] = scanned(node);
      oldGenBefore[node] = heap(node).oldGen();
    }
    HeapWatch watch = new HeapWatch();
    watch.start();
    long read = 0;
    int records = 0;
    try (RawHttp raw = new RawHttp(port(0), 64 * 1024)) {
      raw.send("GET /v0/entities?start=big-&end=big.&scope=cluster HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      assertEquals(200, raw.readHeadOnly().status());
      long start = System.nanoTime();
      long end = start + SLOW_READ.toNanos();
      while (System.nanoTime() < end) {
        byte[] chunk = raw.readChunk();
        assertNotNull(chunk, "the range ended after " + records + " records");
        read += chunk.length;
        records++;
        long due = start + read * 1_000_000_000L / SLOW_READ_BYTES_PER_SECOND;
        long ahead = due - System.nanoTime();
        if (ahead > 0) {
          TimeUnit.NANOSECONDS.sleep(ahead); // the client's pace, 1 MB/s
        }
      }
      // Now the client stops reading: every node's scan must stop well short of its share.
      for (int node = 0; node < 3; node++) {
        int n = node;
        Await.until("node " + node + "'s scan stalls", Duration.ofSeconds(30), new StallDetector(() -> scanned(n)));
      }
      watch.stop();
      long[] scannedWhileSlow = new long[3];
      for (int node = 0; node < 3; node++) {
        scannedWhileSlow[node] = scanned(node) - scannedBefore[node];
      }
      System.out.printf("ClusterRangeTest: slow client read %d records (%d bytes) in %s; records scanned per node %s"
              + " of %d; heap used per node at most %s MB, old generation %s MB before, at most %s MB during%n",
          records, read, SLOW_READ, Arrays.toString(scannedWhileSlow), BIG_RECORDS, watch.maxUsedMb(),
          Arrays.toString(Arrays.stream(oldGenBefore).map(b -> b >> 20).toArray()), watch.maxOldGenMb());
      long scannedTotal = Arrays.stream(scannedWhileSlow).sum();
      assertTrue(scannedTotal < BIG_RECORDS / 2, "a client that read " + records + " records made the nodes scan "
          + Arrays.toString(scannedWhileSlow) + " of " + BIG_RECORDS);
      for (int node = 0; node < 3; node++) {
        assertTrue(scannedWhileSlow[node] > 0, "node " + node + " took part");
        assertTrue(cluster.running(node), "node " + node + " still runs");
        long grown = watch.maxOldGen[node] - oldGenBefore[node];
        assertTrue(grown < OLD_GEN_GROWTH_BOUND, "node " + node + "'s old generation grew by " + (grown >> 20)
            + " MB while a slow client read the range");
      }
      assertTrue(read > SLOW_READ.toSeconds() * SLOW_READ_BYTES_PER_SECOND / 2, "the client read only " + read + " bytes");
    } finally {
      watch.stop();
    }
  }

  @Test
  @Order(4)
  void aNodeKilledMidStreamCutsTheTransferShortOfItsFinalChunk() throws Exception {
    requireAllRunning();
    writeBigRange();
    try (RawHttp raw = new RawHttp(port(0), 64 * 1024)) {
      raw.send("GET /v0/entities?start=big-&end=big.&scope=cluster HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      RawHttp.Response head = raw.readHeadOnly();
      assertEquals(200, head.status());
      assertEquals("chunked", head.headers().get("transfer-encoding"));
      int records = 0;
      for (; records < 10; records++) {
        assertNotNull(raw.readChunk());
      }
      cluster.kill(2);
      int[] received = {records};
      IOException broken = assertThrows(IOException.class, () -> {
        while (raw.readChunk() != null) {
          received[0]++;
        }
      }, "the range ended normally after a node was killed mid-stream");
      System.out.printf("ClusterRangeTest: transfer broken after %d of %d records: %s%n", received[0], BIG_RECORDS,
          broken);
      assertTrue(received[0] < BIG_RECORDS, received[0] + " records");
    }
  }

  @Test
  @Order(5)
  void aNodeDownAnswers504BeforeAnyByteAndTheNodeRangeStillAnswers() throws Exception {
    if (cluster.running(2)) {
      cluster.kill(2);
    }
    // Whether membership has noticed yet or the connection is refused, the answer is 504.
    RawHttp.Response early = RawHttp.exchange(port(0), "GET /v0/entities?start=r-&scope=cluster HTTP/1.1\r\n"
        + "Host: x\r\nConnection: close\r\n\r\n");
    assertEquals(504, early.status(), early.bodyText());
    cluster.awaitSeenDown(2);
    for (int node = 0; node < 2; node++) {
      HttpResponse<byte[]> answer = cluster.http(node).get("/v0/entities?start=r-&scope=cluster");
      assertEquals(504, answer.statusCode());
      assertTrue(answer.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
      assertTrue(Http.text(answer).contains("down: " + cluster.url(2)), Http.text(answer));
    }
    assertEquals(200, cluster.http(0).get("/v0/entities?start=r-&end=r-1").statusCode());
  }

  /** 2,400 values of 100 kB (240 MB, several times a node's 64 MB heap) at 1/1 through random nodes. */
  private static void writeBigRange() throws Exception {
    if (bigRangeWritten) {
      return;
    }
    long started = System.nanoTime();
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < BIG_RECORDS; i++) {
      byte[] value = new byte[BIG_VALUE_BYTES];
      Arrays.fill(value, (byte) ('a' + i % 26));
      ops.add(new Op("PUT", String.format("big-%05d", i), value, "ack=1&from=1", 201));
    }
    send(ops, 8);
    bigRangeWritten = true;
    System.out.printf("ClusterRangeTest: %d values of %d bytes written in %d ms%n", BIG_RECORDS, BIG_VALUE_BYTES,
        (System.nanoTime() - started) / 1_000_000);
  }

  private static String key(int i) {
    // A few keys with non-ASCII characters, which sort by their UTF-8 bytes after every ASCII one.
    return i % 1000 == 7 ? String.format("r-é-%06d", i) : i % 1000 == 9 ? String.format("r-ё-%06d", i)
        : String.format("r-%06d", i);
  }

  private static void requireAllRunning() throws IOException {
    for (int node = 0; node < 3; node++) {
      if (!cluster.running(node)) {
        cluster.restart(node);
      }
    }
  }

  private static int port(int node) {
    return URI.create(cluster.url(node)).getPort();
  }

  /** The range's chunks as text, read off the wire; fails unless it is a complete 200 chunked answer. */
  private static List<String> rangeChunks(int node, String query) throws IOException {
    RawHttp.Response response = RawHttp.exchange(port(node),
        "GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertEquals(200, response.status(), response.bodyText());
    List<String> chunks = new ArrayList<>(response.chunks().size());
    for (byte[] chunk : response.chunks()) {
      chunks.add(new String(chunk, StandardCharsets.UTF_8));
    }
    return chunks;
  }

  private static void assertSameListing(List<String> wanted, List<String> got, String what) {
    for (int i = 0; i < Math.min(wanted.size(), got.size()); i++) {
      if (!wanted.get(i).equals(got.get(i))) {
        fail(what + ": record " + i + " is '" + got.get(i).replace('\n', '=') + "', expected '"
            + wanted.get(i).replace('\n', '=') + "' (" + got.size() + " records, " + wanted.size() + " expected)");
      }
    }
    assertEquals(wanted.size(), got.size(), what + ": records");
  }

  /** A write through a random node, and the status it must answer. */
  private record Op(String method, String key, byte[] body, String quorum, int status) {
    static Op put(String key, String value, String quorum) {
      return new Op("PUT", key, value.getBytes(StandardCharsets.UTF_8), quorum, 201);
    }

    static Op delete(String key, String quorum) {
      return new Op("DELETE", key, null, quorum, 202);
    }
  }

  private static void send(List<Op> ops) throws Exception {
    send(ops, 64);
  }

  /**
   * Sends every write through a random node over keep-alive connections, at most {@code inFlight}
   * at once (Vert.x's client: the JDK's costs the loaded machine several times the CPU per
   * request); fails on any answer but the op's status.
   */
  private static void send(List<Op> ops, int inFlight) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      List<io.vertx.core.http.HttpClient> clients = new ArrayList<>();
      for (int node = 0; node < 3; node++) {
        URI url = URI.create(cluster.url(node));
        clients.add(vertx.createHttpClient(new HttpClientOptions().setDefaultHost(url.getHost())
            .setDefaultPort(url.getPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(inFlight)));
      }
      int[] nodes = ops.stream().mapToInt(op -> random.nextInt(3)).toArray();
      AtomicInteger next = new AtomicInteger();
      ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
      List<Future<Void>> writers = new ArrayList<>();
      for (int w = 0; w < inFlight; w++) {
        Promise<Void> done = Promise.promise();
        vertx.runOnContext(v -> sendNext(clients, ops, nodes, next, failures, done));
        writers.add(done.future());
      }
      Future.all(writers).toCompletionStage().toCompletableFuture().get(300, TimeUnit.SECONDS);
      assertTrue(failures.isEmpty(), failures.size() + " writes failed, such as " + failures.peek());
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void sendNext(List<io.vertx.core.http.HttpClient> clients, List<Op> ops, int[] nodes,
                               AtomicInteger next, ConcurrentLinkedQueue<String> failures, Promise<Void> done) {
    int index = next.getAndIncrement();
    if (index >= ops.size() || !failures.isEmpty()) {
      done.tryComplete();
      return;
    }
    Op op = ops.get(index);
    int node = nodes[index];
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.valueOf(op.method()))
        .setURI("/v0/entity?id=" + encode(op.key()) + "&" + op.quorum()).setTimeout(60_000);
    clients.get(node).request(request)
        .compose(sent -> op.body() == null ? sent.send() : sent.send(Buffer.buffer(op.body())))
        .compose(answer -> answer.body().map(body -> answer.statusCode() == op.status() ? null
            : answer.statusCode() + " " + body))
        .onComplete(answered -> {
          String failure = answered.failed() ? String.valueOf(answered.cause()) : answered.result();
          if (failure != null) {
            failures.add(op.method() + " " + op.key() + " through node " + node + ": " + failure);
          }
          sendNext(clients, ops, nodes, next, failures, done);
        });
  }

  private static String metrics(int node) {
    HttpResponse<byte[]> answer = cluster.http(node).get("/metrics");
    assertEquals(200, answer.statusCode());
    return Http.text(answer);
  }

  /** Records the node's range scans read so far ({@code quorumkv_range_records_scanned_total}). */
  private static long scanned(int node) {
    for (String line : metrics(node).split("\n")) {
      if (line.startsWith("quorumkv_range_records_scanned_total ")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no quorumkv_range_records_scanned_total in the metrics of node " + node);
  }

  /** Heap in use, all pools, and in the old generation, from the node's JVM memory gauges. */
  private record Heap(long used, long oldGen) {
  }

  private static Heap heap(int node) {
    long used = 0;
    long oldGen = -1;
    for (String line : metrics(node).split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{area=\"heap\"")) {
        long bytes = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        used += bytes;
        if (line.contains("Old Gen") || line.contains("Tenured Gen")) {
          oldGen = bytes;
        }
      }
    }
    assertTrue(used > 0 && oldGen >= 0, "no heap gauges in the metrics of node " + node);
    return new Heap(used, oldGen);
  }

  /** Samples every node's heap in the background until stopped, keeping the highest figures. */
  private static final class HeapWatch {
    private final long[] maxUsed = new long[3];
    private final long[] maxOldGen = new long[3];
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong samples = new AtomicLong();
    private Thread thread;

    void start() {
      thread = new Thread(() -> {
        while (running.get()) {
          for (int node = 0; node < 3; node++) {
            Heap heap = heap(node);
            synchronized (this) {
              maxUsed[node] = Math.max(maxUsed[node], heap.used());
              maxOldGen[node] = Math.max(maxOldGen[node], heap.oldGen());
            }
          }
          samples.incrementAndGet();
          try {
            Thread.sleep(250);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "heap-watch");
      thread.setDaemon(true);
      thread.start();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(10_000);
    }

    synchronized String maxUsedMb() {
      return Arrays.toString(Arrays.stream(maxUsed).map(b -> b >> 20).toArray());
    }

    synchronized String maxOldGenMb() {
      return Arrays.toString(Arrays.stream(maxOldGen).map(b -> b >> 20).toArray()) + " (" + samples.get() + " samples)";
    }
  }

  /** True once the counter has not moved for a second of consecutive polls. */
  private static final class StallDetector implements java.util.function.BooleanSupplier {
    private static final int STEADY_POLLS = 50;
    private final LongSupplier counter;
    private long last = -1;
    private int steady;

    StallDetector(LongSupplier counter) {
      this.counter = counter;
    }

    @Override
    public boolean getAsBoolean() {
      long now = counter.getAsLong();
      steady = now == last ? steady + 1 : 0;
      last = now;
      return steady >= STEADY_POLLS;
    }
  }
}
