package io.quorumkv.http;

import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile requests over raw sockets, from several threads at once, against a real node in its own
 * process (a single node whose conf sets a cluster secret and an admin token): valid requests of
 * every endpoint (entities, ranges, status, cluster, metrics, the JFR admin endpoints, both
 * internal ones) sent unchanged or mutated ({@link RequestMutator}), and random requests from
 * scratch ({@link RandomRequests}); sometimes cut short.
 *
 * <p>The rule ({@link FuzzOracle}): every answer in time (5 s); no 5xx but 505 to a well-formed
 * unsupported HTTP version; every 4xx but 404 a short text/plain line without a stack trace; a
 * valid request unchanged gets 2xx, 404 or 409. A request whose framing is broken
 * ({@link WireCheck}) may instead be closed without an answer, or left waiting for its body. The
 * node's process must stay alive, its directory under a disk limit, and afterwards it must still
 * serve. A {@link RecordingKeeper} keeps the node's JFR recordings short and their files few.
 *
 * <p>Settings: {@code -Dfuzz.seed=S} replays a run (printed at the start; each thread's seed
 * follows from it), {@code -Dfuzz.millis=MS} bounds its time (15 s by default),
 * {@code -Dfuzz.requests=N} its requests (no bound by default; a run that ends by time first
 * fails), {@code -Dfuzz.threads=T} (8), {@code -Dfuzz.maxDiskMb=MB} (2048). A summary line
 * starting with {@code RequestFuzzTest summary} gives the figures; scripts/fuzz.sh runs a million.
 */
@ProcessTier
class RequestFuzzTest {
  private static final int BODY_LIMIT = 64 * 1024;
  private static final String ADMIN_TOKEN = "fuzz-admin-" + UUID.randomUUID();
  private static final String CLUSTER_SECRET = "fuzz-secret-" + UUID.randomUUID();
  private static final String REQUESTS_UNBOUNDED = Long.toString(Long.MAX_VALUE);

  @TempDir
  Path dir;

  @Test
  void hostileRequestsNeverGet5xxHangOrKillTheNode() throws Exception {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    long millis = Long.getLong("fuzz.millis", 15_000);
    long requestBudget = Long.parseLong(System.getProperty("fuzz.requests", REQUESTS_UNBOUNDED));
    int threads = Integer.getInteger("fuzz.threads", 8);
    long maxDiskBytes = Long.getLong("fuzz.maxDiskMb", 2_048) << 20;
    String replay = "-Dfuzz.seed=" + seed + " -Dfuzz.threads=" + threads;
    System.out.println("RequestFuzzTest seed=" + seed + " (replay with " + replay + "), " + threads + " threads, "
        + (requestBudget == Long.MAX_VALUE ? "" : requestBudget + " requests, ") + "at most " + millis + " ms");

    try (NodeProcess node = startNode()) {
      int port = node.awaitReady();
      Http http = node.http();
      warmUpJfr(http);

      FuzzTally tally = new FuzzTally(requestBudget, System.nanoTime() + millis * 1_000_000, Integer.getInteger(
          "fuzz.maxFailures", 10));
      FuzzWatch watch = new FuzzWatch(node, dir, maxDiskBytes, tally, 60);
      RecordingKeeper keeper = new RecordingKeeper(http, ADMIN_TOKEN, dir.resolve("data").resolve("recordings"),
          ValidRequests.RECORDING_NAME_SET);
      ScheduledExecutorService watcher = Executors.newScheduledThreadPool(2);
      watcher.scheduleWithFixedDelay(watch, 1, 1, TimeUnit.SECONDS);
      watcher.scheduleWithFixedDelay(keeper, 2, 2, TimeUnit.SECONDS);
      FuzzRequests requests = new FuzzRequests(ADMIN_TOKEN, CLUSTER_SECRET, BODY_LIMIT);
      SplittableRandom seeds = new SplittableRandom(seed);
      List<Thread> workers = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < threads; i++) {
        Thread worker = new Thread(new FuzzWorker(i, seeds.nextLong(), port, requests, tally, replay), "fuzz-" + i);
        worker.start();
        workers.add(worker);
      }
      for (Thread worker : workers) {
        worker.join();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      watcher.shutdown();
      assertTrue(watcher.awaitTermination(30, TimeUnit.SECONDS), "the watcher did not stop");
      watch.run(); // a last look at the node and its disk

      String log = node.log();
      long severe = log.lines().filter(line -> line.contains(" SEVERE ")).count();
      long blocked = log.lines().filter(line -> line.contains("has been blocked for")).count();
      System.out.printf("RequestFuzzTest summary: seed=%d threads=%d: %,d requests in %.1f s (%.0f req/s); "
              + "%,d random, %,d mutated, %,d valid unchanged; %,d cut short; %,d connections%n",
          seed, threads, tally.sent(), seconds, tally.sent() / seconds, tally.random.sum(), tally.mutated.sum(),
          tally.valid.sum(), tally.cutShort.sum(), tally.connections.sum());
      System.out.printf("RequestFuzzTest summary: %,d answers by class %s, 505: %,d, other 5xx: %,d; statuses %s%n",
          tally.answers(), tally.statusClasses(), tally.statuses().getOrDefault(505, 0L), other5xx(tally),
          tally.statuses());
      System.out.printf("RequestFuzzTest summary: %,d closed without an answer (framing broken or cut short); "
              + "hangs %d, unexpected closes %d; failures %d%n",
          tally.closedWithoutAnswer.sum(), tally.hangs.sum(), tally.unexpectedCloses.sum(), tally.failureCount());
      System.out.println("RequestFuzzTest summary: " + tally.answerTimes());
      System.out.printf("RequestFuzzTest summary: recording keeper stopped %d recordings running over 5 s, deleted %d "
          + "old files of other names, %d calls failed%n", keeper.stopped.sum(), keeper.deleted.sum(), keeper.failed.sum());
      System.out.printf("RequestFuzzTest summary: node deaths %d; peak disk %.0f MiB; open files %s; "
              + "CPU: node %.0f s, fuzzer %.0f s; node log: %d SEVERE lines, %d blocked-thread warnings%n",
          watch.died() ? 1 : 0, watch.peakDiskBytes() / (double) (1 << 20), watch.openFiles(),
          cpuSeconds(ProcessHandle.of(node.pid())), cpuSeconds(java.util.Optional.of(ProcessHandle.current())),
          severe, blocked);
      severeKinds(log).forEach((kind, count) -> System.out.println("RequestFuzzTest summary: node log SEVERE "
          + count + " x " + kind));
      if (severe > 0 || blocked > 0) {
        Path saved = Files.createDirectories(Path.of("target")).resolve("fuzz-node-" + seed + ".log");
        Files.writeString(saved, log);
        System.out.println("RequestFuzzTest summary: node log saved as " + saved);
      }

      assertTrue(tally.failures().isEmpty(), "seed " + seed + ": " + tally.failureCount() + " failures, the first ones:\n"
          + String.join("\n", tally.failures()));
      assertFalse(watch.died(), "the node died");
      if (requestBudget != Long.MAX_VALUE) {
        assertEquals(requestBudget, tally.sent(), "the time bound (" + millis + " ms) ended the run first");
      }
      assertEquals(200, http.get("/v0/status").statusCode());
      http.putEntity("after-fuzz", "still here");
      assertEquals("still here", text(http.get("/v0/entity?id=after-fuzz")));
      node.terminate(); // a clean stop (SIGTERM) rather than close()'s kill
    }
  }

  private NodeProcess startNode() throws Exception {
    JsonObject conf = new JsonObject()
        .put("url", "http://127.0.0.1:0")
        .put("dataDir", NodeProcess.jsonPath(dir.resolve("data")))
        .put("eventLoops", 2)
        .put("maxBodyBytes", BODY_LIMIT)
        .put("clusterSecret", CLUSTER_SECRET)
        .put("adminToken", ADMIN_TOKEN);
    Path confFile = NodeProcess.writeConf(dir, "node.json", conf.encodePrettily());
    // JFR keeps its repository (the chunks of running recordings) in the test directory, not in /tmp.
    return NodeProcess.launch(dir.resolve("node.log"),
        List.of("-XX:FlightRecorderOptions=repository=" + dir.resolve("jfr-repository"),
            // GC pauses, to tell a paused JVM from a blocked event loop when a request hangs.
            "-Xlog:gc:file=" + Path.of("target", "fuzz-node-gc.log").toAbsolutePath()),
        "--config", confFile.toString());
  }

  /**
   * The node's first JFR recording and flame graph start the recorder and load the converter
   * (over 5 s on a loaded machine): done once before the run, so the answer timeout measures the
   * requests, not that warm-up.
   */
  private static void warmUpJfr(Http http) {
    String auth = "Bearer " + ADMIN_TOKEN;
    HttpResponse<byte[]> started = http.send("POST", "/admin/jfr?name=fz-warmup&duration=1000",
        HttpRequest.BodyPublishers.noBody(), "Authorization", auth);
    assertEquals(201, started.statusCode(), text(started));
    HttpResponse<byte[]> flame = http.send("GET", "/admin/jfr/flame?name=fz-warmup", HttpRequest.BodyPublishers.noBody(),
        "Authorization", auth);
    assertEquals(200, flame.statusCode(), text(flame));
  }

  /** SEVERE log entries by what they say: the exception line after each, with its first frame. */
  private static java.util.Map<String, Long> severeKinds(String log) {
    List<String> lines = log.lines().toList();
    java.util.Map<String, Long> kinds = new java.util.TreeMap<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(" SEVERE ")) {
        String kind = (i + 1 < lines.size() ? lines.get(i + 1) : lines.get(i))
            + (i + 2 < lines.size() ? " " + lines.get(i + 2).strip() : "");
        kinds.merge(kind, 1L, Long::sum);
      }
    }
    return kinds;
  }

  private static double cpuSeconds(java.util.Optional<ProcessHandle> process) {
    return process.flatMap(p -> p.info().totalCpuDuration()).map(d -> d.toMillis() / 1e3).orElse(Double.NaN);
  }

  private static long other5xx(FuzzTally tally) {
    return tally.statuses().entrySet().stream().filter(e -> e.getKey() >= 500 && e.getKey() != 505)
        .mapToLong(java.util.Map.Entry::getValue).sum();
  }
}
