package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 42: one node's data directory on a small filesystem (a tmpfs this test mounts, as root)
 * that fills up. Writes at 2/3 go on succeeding through every node, the full node raises an alarm
 * in {@code /v0/cluster} and {@code /metrics}, a write that needs the full node answers {@code 507}
 * with no file path, reads of the full node go on; once space is freed the alarm clears, the
 * hints kept for the full node are delivered, and every acknowledged write reads back from all
 * three replicas. Skipped, with the reason, where a tmpfs cannot be mounted.
 */
@ProcessTier
class DiskFullTest {
  private static final int FULL = 2;
  private static final String SIZE = "48m";
  /** Room left beside the filler: less than one write-ahead-log block of the writes below. */
  private static final long LEFT_FREE_BYTES = 64 * 1024;
  private static final int VALUE_BYTES = 8 * 1024;
  private static final Duration CHANGE = Duration.ofSeconds(90);

  @TempDir
  Path dir;
  private Path mount;
  private ProcessCluster cluster;

  @AfterEach
  void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (mount != null) {
        run("umount", mount.toString());
      }
    }
  }

  @Test
  void writesGoOnWhileOneDiskIsFullAndNothingAcknowledgedIsLost() throws Exception {
    Path dataDir = dir.resolve("node-" + FULL);
    Files.createDirectories(dataDir);
    String refused = run("mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", dataDir.toString());
    assumeTrue(refused == null, () -> "cannot mount a tmpfs for the full disk (needs root): " + refused);
    mount = dataDir;
    // Small memtables: RocksDB preallocates each write-ahead log for one, and the writes below must outgrow it.
    cluster = ProcessCluster.start(new ProcessCluster.Options(3)
        .conf(new JsonObject().put("storage", new JsonObject().put("writeBufferBytes", 1 << 20)))
        .startTimeout(Duration.ofSeconds(120)), dir);

    Path filler = dataDir.resolve("filler");
    fill(filler, dataDir);
    String value = "v".repeat(VALUE_BYTES);
    Map<String, String> acknowledged = new LinkedHashMap<>();
    List<String> writeAnswers = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String key = "full-" + i;
      HttpResponse<byte[]> answer = cluster.http(i % 3).put("/v0/entity?id=" + key + "&ack=2&from=3", value + i);
      writeAnswers.add(answer.statusCode() + " " + Http.text(answer));
      if (answer.statusCode() == 201) {
        acknowledged.put(key, value + i);
      }
    }
    assertEquals(300, acknowledged.size(), () -> "writes at 2/3 through every node: " + writeAnswers.stream()
        .filter(answer -> !answer.startsWith("201")).limit(5).toList());
    Await.until("the full node raises its alarm", CHANGE, () -> diskFullAlarms().size() == 1);
    assertTrue(Http.text(cluster.http(FULL).get("/metrics")).contains("quorumkv_alarm{kind=\"disk_full\"} 1.0"));

    HttpResponse<byte[]> needsAll = cluster.http(0).put("/v0/entity?id=needs-all&ack=3&from=3", "x");
    assertEquals(507, needsAll.statusCode(), () -> Http.text(needsAll));
    assertFalse(Http.text(needsAll).contains(dataDir.toString()), () -> "no file path: " + Http.text(needsAll));
    assertTrue(Http.text(needsAll).contains("disk full"), () -> Http.text(needsAll));
    String firstKey = acknowledged.keySet().iterator().next();
    assertEquals(200, cluster.http(FULL).get("/v0/entity?id=" + firstKey).statusCode(), "the full node serves reads");

    Files.delete(filler);
    Await.until("the alarm clears once space is freed", CHANGE, () -> {
      cluster.http(FULL).put("/v0/entity?id=probe&ack=1&from=3", "after");
      return diskFullAlarms().isEmpty();
    });
    Await.until("the hints for the full node are delivered", CHANGE, () -> cluster.pendingHints(0) == 0
        && cluster.pendingHints(1) == 0);
    List<String> wrong = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      for (Map.Entry<String, String> entry : acknowledged.entrySet()) {
        HttpResponse<byte[]> read = cluster.http(node).get("/v0/entity?id=" + entry.getKey() + "&ack=3&from=3");
        if (read.statusCode() != 200 || !entry.getValue().equals(Http.text(read))) {
          wrong.add(entry.getKey() + " through node " + node + ": " + read.statusCode());
        }
      }
    }
    assertEquals(List.of(), wrong, "every acknowledged write on all three replicas");
  }

  /** Fills the filesystem of {@code dataDir} with one file, all but a few KiB. */
  private static void fill(Path filler, Path dataDir) throws IOException {
    long free = Files.getFileStore(dataDir).getUsableSpace();
    try (RandomAccessFile file = new RandomAccessFile(filler.toFile(), "rw")) {
      byte[] block = new byte[1 << 20];
      long left = free - LEFT_FREE_BYTES;
      while (left > 0) {
        int chunk = (int) Math.min(block.length, left);
        file.write(block, 0, chunk);
        left -= chunk;
      }
    }
  }

  private JsonArray diskFullAlarms() {
    JsonArray alarms = cluster.clusterInfo(FULL).getJsonArray("alarms", new JsonArray());
    return new JsonArray(alarms.stream().filter(alarm -> "disk_full".equals(((JsonObject) alarm)
        .getString("kind"))).toList());
  }

  /** Runs a command; null when it succeeded, else what it printed. */
  private static String run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return "timed out";
    }
    String output = new String(process.getInputStream().readAllBytes()).strip();
    return process.exitValue() == 0 ? null : "exit " + process.exitValue() + ": " + output;
  }
}
