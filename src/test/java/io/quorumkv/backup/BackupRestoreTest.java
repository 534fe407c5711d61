package io.quorumkv.backup;

import io.quorumkv.support.Await;
import io.quorumkv.support.BulkWrites;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.Soak;
import io.quorumkv.support.TestFiles;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Backups and restores end to end, with real node processes and the restore tool as its own
 * process. Three nodes take {@link #KEYS} keys at the default 2-of-3 quorum, some deleted and some
 * with a TTL, and a cluster backup, copied off the nodes' data directories as an operator would. Then
 * a tenth of the keys are overwritten and a twentieth deleted, and the tests restore: into the same
 * cluster after one node lost its disk; a rollback of one range; into a fresh cluster of four nodes,
 * with the tool and a receiving node killed midway; into a cluster that a fourth node joins
 * meanwhile; and into a cluster rebuilt at the same urls after a run into it was killed, where the
 * rerun must not resume. Anti-entropy is slowed to once an hour, so that only the restore can bring back what a
 * test checks.
 *
 * <p>A soak ({@link Soak}): 20,000 keys in CI, 100,000 with {@code -Dsoak=full} (or
 * {@code -Dbackup.keys=N}). The restore tool's rates scale with the keys, so that its runs last as
 * long at either size and the kills and the join still land midway.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ProcessTier
class BackupRestoreTest {
  private static final String TOKEN = "backup-test-token";
  private static final int KEYS = Soak.size("backup.keys", 20_000, 100_000);
  private static final int DELETED_BEFORE = KEYS / 50;
  private static final int WITH_TTL = 500;
  private static final int OVERWRITTEN = KEYS / 10;
  private static final int DELETED_AFTER = KEYS / 20;
  /** Records a second for the runs that are killed midway: about 12 s of work at either size. */
  private static final int SLOW_RATE = KEYS / 12;
  /** Records a second for the run a node joins during: about 25 s of work at either size. */
  private static final int JOIN_RATE = KEYS / 25;
  private static final String BACKUP = "nightly";
  private static final JsonObject CONF = new JsonObject()
      .put("adminToken", TOKEN)
      .put("antiEntropy", new JsonObject().put("intervalMs", 3_600_000));

  @RegisterExtension
  static final ClusterExtension CLUSTERS = new ClusterExtension();

  private static ProcessCluster source;
  private static Path work;
  /** Where the nodes' backups were copied to: one directory per node. */
  private static Path offsite;
  /** Every live key at the time of the backup, with its value. */
  private static TreeMap<String, String> atBackup;
  /** The versions of some keys at the time of the backup. */
  private static Map<String, Long> versionsAtBackup;
  /** The TTL keys' expiry at the time of the backup, as a replica holds it. */
  private static Map<String, Long> expiryAtBackup;
  /** Every live key once the overwrites and deletes after the backup were done. */
  private static Map<String, String> afterChanges;

  @BeforeAll
  static void writeBackUpAndChange() throws Exception {
    work = Files.createTempDirectory("backup-restore-test");
    source = CLUSTERS.start(3, CONF);
    List<BulkWrites.Op> puts = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      puts.add(new BulkWrites.Op(key(i), "v1-" + i));
    }
    BulkWrites.run(source.urls(), puts, 4, Duration.ofMinutes(3), System.out);
    List<BulkWrites.Op> deletes = new ArrayList<>();
    for (int i = 0; i < DELETED_BEFORE; i++) {
      deletes.add(new BulkWrites.Op(key(KEYS - 1 - i), null));
    }
    BulkWrites.run(source.urls(), deletes, 4, Duration.ofMinutes(1), System.out);
    Http http = source.http(0);
    expiryAtBackup = new HashMap<>();
    for (int i = 0; i < WITH_TTL; i++) {
      assertEquals(201, http.put("/v0/entity?id=ttl-" + i + "&ttl=3600000", "t-" + i).statusCode());
    }
    for (int i = 0; i < WITH_TTL; i += 50) {
      expiryAtBackup.put("ttl-" + i, expiryOn(source, "ttl-" + i));
    }
    atBackup = new TreeMap<>(clusterLive(source, 0, null, null));
    assertEquals(KEYS - DELETED_BEFORE + WITH_TTL, atBackup.size(), "live keys before the backup");
    versionsAtBackup = versions(source.http(1), sample(atBackup, 500));

    HttpResponse<byte[]> unauthorized = http.send("POST", "/admin/backup?scope=cluster&name=" + BACKUP,
        HttpRequest.BodyPublishers.noBody());
    assertEquals(401, unauthorized.statusCode(), Http.text(unauthorized));
    HttpResponse<byte[]> taken = http.send("POST", "/admin/backup?scope=cluster&name=" + BACKUP,
        HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer " + TOKEN);
    assertEquals(201, taken.statusCode(), Http.text(taken));
    JsonArray nodes = new JsonObject(Http.text(taken)).getJsonArray("nodes");
    assertEquals(3, nodes.size(), Http.text(taken));
    for (int node = 0; node < 3; node++) {
      JsonObject manifest = nodes.getJsonObject(node).getJsonObject("backup");
      // from=3 on 3 nodes: every node holds every key, the deleted ones as tombstones.
      assertEquals(KEYS + WITH_TTL, manifest.getLong("records"), manifest.encodePrettily());
      assertEquals(DELETED_BEFORE, manifest.getLong("tombstones"), manifest.encodePrettily());
      assertEquals(BACKUP, manifest.getString("name"));
    }
    offsite = work.resolve("offsite");
    for (int node = 0; node < 3; node++) {
      copyTree(source.dataDir(node).resolve("backups").resolve(BACKUP), offsite.resolve("node-" + node));
    }

    List<BulkWrites.Op> changes = new ArrayList<>();
    for (int i = 0; i < OVERWRITTEN; i++) {
      changes.add(new BulkWrites.Op(key(i * 7), "v2-" + i * 7));
    }
    for (int i = 0; i < DELETED_AFTER; i++) {
      changes.add(new BulkWrites.Op(key(i * 7 + 3), null));
    }
    BulkWrites.run(source.urls(), changes, 4, Duration.ofMinutes(2), System.out);
    afterChanges = clusterLive(source, 0, null, null);
    assertEquals(atBackup.size() - DELETED_AFTER, afterChanges.size(), "live keys after the changes");
  }

  @AfterAll
  static void deleteWorkDirectory() throws IOException {
    if (work != null) {
      TestFiles.deleteTree(work);
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aRestoreBringsBackALostDiskAndUndoesNoLaterWrite() throws Exception {
    source.kill(2);
    source.wipeData(2);
    source.restart(2);
    assertEquals(0, nodeLive(source, 2).size(), "the wiped node starts empty");

    Run run = restore(work.resolve("same-cluster"), "--from", offsite.toString(), "--url", source.url(0),
        "--token", TOKEN, "--rate", "50000", "--progress", work.resolve("same-cluster.json").toString());
    assertEquals(0, run.exit(), run.output());
    assertTrue(run.output().contains(String.format(Locale.ROOT, "%,d already newer in the cluster",
        OVERWRITTEN + DELETED_AFTER)), run.output());

    for (int node = 0; node < 3; node++) {
      assertSameRecords(afterChanges, clusterLive(source, node, null, null), "the cluster through node " + node);
    }
    assertSameRecords(afterChanges, nodeLive(source, 2), "the wiped node's own store");
    Map<String, Long> overwrittenVersions = versions(source.http(0), List.of(key(0), key(7), key(14)));
    overwrittenVersions.forEach((key, version) -> assertTrue(version > versionsAtBackup.getOrDefault(key, 0L),
        key + " keeps its later write"));

    Run again = restore(work.resolve("same-cluster-again"), "--from", offsite.toString(), "--url", source.url(1),
        "--token", TOKEN, "--rate", "50000", "--progress", work.resolve("same-cluster-again.json").toString());
    assertEquals(0, again.exit(), again.output());
    assertSameRecords(afterChanges, clusterLive(source, 1, null, null), "the cluster after a second run");
    assertSameRecords(afterChanges, nodeLive(source, 2), "the wiped node's own store after a second run");
  }

  @Test
  @Order(2)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aRollbackMakesItsRangeReadAsInTheBackupAndLeavesTheRestAlone() throws Exception {
    String start = key(KEYS / 5);
    String end = key(KEYS * 23 / 100);
    Http http = source.http(1);
    for (int i = 0; i < 20; i++) {
      assertEquals(201, http.put("/v0/entity?id=" + key(KEYS / 5 + i * KEYS / 1_000) + "-new", "born-after-backup")
          .statusCode());
    }
    assertEquals(201, http.put("/v0/entity?id=" + key(KEYS / 4) + "-new", "outside").statusCode());
    Map<String, String> before = clusterLive(source, 0, null, null);

    Run run = restore(work.resolve("rollback"), "--from", offsite.toString(), "--url", source.url(2),
        "--token", TOKEN, "--start", start, "--end", end, "--rollback", "--progress",
        work.resolve("rollback.json").toString());
    assertEquals(0, run.exit(), run.output());

    Map<String, String> wanted = new TreeMap<>(atBackup.subMap(start, end));
    for (int node = 0; node < 3; node++) {
      assertSameRecords(wanted, clusterLive(source, node, start, end), "the rolled-back range through node " + node);
    }
    Map<String, String> outside = clusterLive(source, 0, null, null);
    outside.keySet().removeIf(key -> key.compareTo(start) >= 0 && key.compareTo(end) < 0);
    Map<String, String> outsideBefore = new TreeMap<>(before);
    outsideBefore.keySet().removeIf(key -> key.compareTo(start) >= 0 && key.compareTo(end) < 0);
    assertSameRecords(outsideBefore, outside, "keys outside the range");
  }

  @Test
  @Order(3)
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void aFreshClusterOfAnotherSizeGetsEveryRecordAtItsVersionThroughKillsAndReruns() throws Exception {
    ProcessCluster fresh = CLUSTERS.start(4, CONF);
    Path out = work.resolve("fresh");

    Path foreign = Files.createDirectories(out.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "not a backup");
    Run refused = restore(out.resolve("foreign-run"), "--from", foreign.toString(), "--url", fresh.url(0),
        "--token", TOKEN, "--progress", out.resolve("foreign.json").toString());
    assertEquals(1, refused.exit(), refused.output());
    assertEquals(1, refused.output().strip().lines().count(), refused.output());
    assertTrue(refused.output().contains("not a quorumkv backup"), refused.output());

    Path corrupt = out.resolve("corrupt");
    copyTree(offsite.resolve("node-1"), corrupt);
    Path table;
    try (Stream<Path> files = Files.list(corrupt.resolve("rocksdb"))) {
      table = files.filter(file -> file.toString().endsWith(".sst")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(table);
    bytes[bytes.length / 2] ^= 0x5A;
    Files.write(table, bytes);
    Run damaged = restore(out.resolve("corrupt-run"), "--from", offsite.resolve("node-0").toString(),
        "--from", corrupt.toString(), "--url", fresh.url(0), "--token", TOKEN, "--progress",
        out.resolve("corrupt.json").toString());
    assertEquals(1, damaged.exit(), damaged.output());
    assertTrue(damaged.output().contains("corrupt backup"), damaged.output());
    assertEquals(0, clusterLive(fresh, 0, null, null).size(), "nothing was written from a damaged backup");

    Run wrongToken = restore(out.resolve("token-run"), "--from", offsite.toString(), "--url", fresh.url(0),
        "--token", "wrong", "--progress", out.resolve("token.json").toString());
    assertEquals(1, wrongToken.exit(), wrongToken.output());
    assertTrue(wrongToken.output().contains("401 unknown token"), wrongToken.output());

    Path progress = out.resolve("progress.json");
    String[] args = {"--from", offsite.resolve("node-0").toString(), "--from", offsite.resolve("node-1").toString(),
        "--from", offsite.resolve("node-2").toString(), "--url", fresh.url(0), "--token", TOKEN,
        "--rate", Integer.toString(SLOW_RATE), "--progress", progress.toString()};
    Process first = start(out.resolve("run-1"), args);
    Await.until("the first run confirmed some records", Duration.ofSeconds(60), () -> Files.exists(progress));
    first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    String afterKill = Files.readString(progress);

    Process second = start(out.resolve("run-2"), args);
    Await.until("the second run went on", Duration.ofSeconds(60),
        () -> !afterKill.equals(readQuietly(progress)));
    fresh.kill(3);
    assertTrue(second.waitFor(120, TimeUnit.SECONDS), "the run stops once a replica is gone");
    String secondOutput = Files.readString(out.resolve("run-2"));
    assertTrue(secondOutput.contains("resuming after key"), secondOutput);
    assertEquals(1, second.exitValue(), secondOutput);
    assertTrue(secondOutput.contains("run the same command again to resume"), secondOutput);

    fresh.restart(3);
    Run last = restore(out.resolve("run-3"), args);
    assertEquals(0, last.exit(), last.output());
    assertTrue(last.output().contains("resuming after key"), last.output());
    assertTrue(Files.notExists(progress), "a restore that ends well leaves no progress file");

    for (int node = 0; node < 4; node++) {
      assertSameRecords(atBackup, clusterLive(fresh, node, null, null), "the fresh cluster through node " + node);
      assertEquals(versionsAtBackup, versions(fresh.http(node), List.copyOf(versionsAtBackup.keySet())),
          "versions through node " + node);
    }
    for (Map.Entry<String, Long> ttl : expiryAtBackup.entrySet()) {
      assertEquals(ttl.getValue(), expiryOn(fresh, ttl.getKey()), "expiry of " + ttl.getKey());
    }
  }

  @Test
  @Order(4)
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aRestoreDuringAJoinPlacesEveryRecordByTheChangingTopology() throws Exception {
    ProcessCluster target = CLUSTERS.start(3, CONF.copy()
        .put("transfer", new JsonObject().put("recordsPerSecond", 20_000)));
    Path out = work.resolve("during-join");
    Path progress = out.resolve("progress.json");
    String[] args = {"--from", offsite.toString(), "--url", target.url(0), "--token", TOKEN, "--rate",
        Integer.toString(JOIN_RATE), "--progress", progress.toString()};
    Process restoring = start(out.resolve("run-1"), args);
    Await.until("the restore confirmed some records", Duration.ofSeconds(60), () -> Files.exists(progress));
    int joined = target.addNode(new JsonObject());
    assertTrue(restoring.waitFor(3, TimeUnit.MINUTES), "the restore finished");
    // A batch meeting the joiner before it serves fails; the operator's answer is to run it again.
    for (int run = 2; restoring.exitValue() != 0 && run <= 3; run++) {
      restoring = start(out.resolve("run-" + run), args);
      assertTrue(restoring.waitFor(3, TimeUnit.MINUTES), "the restore finished");
    }
    assertEquals(0, restoring.exitValue(), Files.readString(out.resolve("run-1")));
    System.out.println("restore during a join: " + Files.readString(out.resolve("run-1")).lines()
        .filter(line -> line.startsWith("restore: done") || line.startsWith("restore: stopped")).toList());
    Await.until("the join is done", Duration.ofMinutes(3), target::stableEverywhere, target::topologyViews);
    for (int node = 0; node <= joined; node++) {
      assertSameRecords(atBackup, clusterLive(target, node, null, null), "after the join, through node " + node);
    }
  }

  /**
   * A key written to one replica before a backup and to all three after it is rolled back on every
   * replica: the rollback writes the key's whole default home set, the widest its copies were on
   * either side. Before, it wrote as many copies as the backed-up record had (one), so two replicas
   * kept the value written after the backup, and a read that met two of them returned it.
   */
  @Test
  @Order(5)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aRollbackWritesEveryCopyOfAKeyThatHadFewerBeforeTheBackup() throws Exception {
    String narrow = "narrow-key";
    Http http = source.http(0);
    assertEquals(201, http.put("/v0/entity?id=" + narrow + "&ack=1&from=1", "before the backup").statusCode());
    HttpResponse<byte[]> taken = http.send("POST", "/admin/backup?scope=cluster&name=narrow",
        HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer " + TOKEN);
    assertEquals(201, taken.statusCode(), Http.text(taken));
    Path backups = work.resolve("offsite-narrow");
    for (int node = 0; node < 3; node++) {
      copyTree(source.dataDir(node).resolve("backups").resolve("narrow"), backups.resolve("node-" + node));
    }
    assertEquals(201, http.put("/v0/entity?id=" + narrow + "&ack=3&from=3", "after the backup").statusCode());

    Run run = restore(work.resolve("narrow-rollback"), "--from", backups.toString(), "--url", source.url(1),
        "--token", TOKEN, "--start", narrow, "--end", "narrow-kez", "--rollback", "--progress",
        work.resolve("narrow-rollback.json").toString());
    assertEquals(0, run.exit(), run.output());
    for (int node = 0; node < 3; node++) {
      ReplicaCopy copy = source.copy(node, narrow);
      assertEquals("before the backup", copy == null ? null : copy.value(), "the copy on node " + node);
    }
  }

  /**
   * A cluster has one identity, the same through every node and across restarts, and a cluster
   * rebuilt at the same urls has another. A restore killed midway into the first is not resumed
   * into the second: the rerun refuses with one line naming both, and {@code --from-scratch}
   * restores every key. Before, the rerun resumed after the first cluster's cursor and left the
   * second without every key up to it.
   */
  @Test
  @Order(6)
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aResumeIntoAClusterRebuiltAtTheSameUrlsIsRefused() throws Exception {
    ProcessCluster target = CLUSTERS.start(3, CONF);
    String first = sameClusterIdOnEveryNode(target);
    target.stop(1);
    target.restart(1);
    assertEquals(first, sameClusterIdOnEveryNode(target), "the cluster id after a node's restart");

    Path out = work.resolve("rebuilt");
    Path progress = out.resolve("progress.json");
    String[] args = {"--from", offsite.toString(), "--url", target.url(0), "--token", TOKEN,
        "--rate", Integer.toString(SLOW_RATE), "--progress", progress.toString()};
    Process killed = start(out.resolve("run-1"), args);
    Await.until("the first run confirmed some records", Duration.ofSeconds(60), () -> Files.exists(progress));
    killed.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    String afterKill = Files.readString(progress);

    for (int node = 0; node < 3; node++) {
      target.stop(node);
      target.wipeData(node);
    }
    for (int node = 0; node < 3; node++) {
      target.startAgain(node);
    }
    target.awaitAllSeeAll();
    String rebuilt = sameClusterIdOnEveryNode(target);
    assertTrue(!rebuilt.equals(first), "a cluster rebuilt on fresh data directories has an id of its own: " + first);

    Run refused = restore(out.resolve("run-2"), args);
    assertEquals(1, refused.exit(), refused.output());
    String last = refused.output().strip().lines().reduce((a, b) -> b).orElse("");
    assertEquals("quorumkv restore: the progress file " + progress + " is for cluster " + first
        + ", the target is cluster " + rebuilt + ": delete it or pass --from-scratch", last, refused.output());
    assertEquals(afterKill, Files.readString(progress), "a refused run leaves the progress file as it was");
    assertEquals(0, clusterLive(target, 0, null, null).size(), "a refused run writes nothing");

    Run fresh = restore(out.resolve("run-3"), "--from", offsite.toString(), "--url", target.url(0), "--token", TOKEN,
        "--rate", "50000", "--progress", progress.toString(), "--from-scratch");
    assertEquals(0, fresh.exit(), fresh.output());
    for (int node = 0; node < 3; node++) {
      assertSameRecords(atBackup, clusterLive(target, node, null, null), "the rebuilt cluster through node " + node);
    }
  }

  /** The {@code clusterId} of {@code GET /v0/cluster}, asserted the same on every node. */
  private static String sameClusterIdOnEveryNode(ProcessCluster cluster) {
    String id = cluster.clusterInfo(0).getString("clusterId");
    assertTrue(id != null && !id.isEmpty(), cluster.clusterInfo(0).encodePrettily());
    for (int node = 1; node < cluster.size(); node++) {
      assertEquals(id, cluster.clusterInfo(node).getString("clusterId"), "the cluster id on node " + node);
    }
    return id;
  }

  private static String key(int i) {
    return String.format("key-%06d", i);
  }

  private record Run(int exit, String output) {
  }

  /** Runs the restore tool as its own process until it exits; its output goes to {@code log}. */
  private static Run restore(Path log, String... args) throws Exception {
    Process tool = start(log, args);
    assertTrue(tool.waitFor(4, TimeUnit.MINUTES), "the restore finished");
    return new Run(tool.exitValue(), Files.readString(log));
  }

  private static Process start(Path log, String... args) throws IOException {
    Files.createDirectories(log.getParent());
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), "io.quorumkv.Main",
        "restore"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  /** The cluster's live records in {@code [start, end)} (null for no bound), read through the node. */
  private static Map<String, String> clusterLive(ProcessCluster cluster, int node, String start, String end)
      throws IOException {
    return range(cluster, node, "start=" + Http.encode(start == null ? "\u0001" : start)
        + (end == null ? "" : "&end=" + Http.encode(end)) + "&scope=cluster");
  }

  /** The live records of the node's own store. */
  private static Map<String, String> nodeLive(ProcessCluster cluster, int node) throws IOException {
    return range(cluster, node, "start=%01&scope=node");
  }

  private static Map<String, String> range(ProcessCluster cluster, int node, String query) throws IOException {
    RawHttp.Response response = RawHttp.exchange(URI.create(cluster.url(node)).getPort(),
        "GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertEquals(200, response.status(), response.bodyText());
    Map<String, String> records = new TreeMap<>();
    for (byte[] chunk : response.chunks()) {
      String text = new String(chunk, StandardCharsets.UTF_8);
      int newline = text.indexOf('\n');
      records.put(text.substring(0, newline), text.substring(newline + 1));
    }
    return records;
  }

  private static Map<String, Long> versions(Http http, List<String> keys) {
    Map<String, Long> versions = new TreeMap<>();
    for (String key : keys) {
      HttpResponse<byte[]> read = http.get("/v0/entity?id=" + Http.encode(key));
      assertEquals(200, read.statusCode(), key);
      versions.put(key, Long.parseLong(read.headers().firstValue(ApiHeaders.VERSION).orElseThrow()));
    }
    return versions;
  }

  private static List<String> sample(Map<String, String> records, int count) {
    List<String> keys = new ArrayList<>(records.keySet());
    List<String> sample = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      sample.add(keys.get((int) ((long) i * keys.size() / count)));
    }
    return sample;
  }

  /** The key's expiry as the first node holding it stores it ({@code X-QKV-Expires-At}). */
  private static long expiryOn(ProcessCluster cluster, String key) {
    for (int node : cluster.members()) {
      HttpResponse<byte[]> record = cluster.http(node).get("/internal/v0/record?id=" + Http.encode(key));
      if (record.statusCode() == 200) {
        return Long.parseLong(record.headers().firstValue("X-QKV-Expires-At").orElseThrow());
      }
    }
    throw new AssertionError("no node holds " + key);
  }

  private static void assertSameRecords(Map<String, String> wanted, Map<String, String> got, String what) {
    if (wanted.equals(got)) {
      return;
    }
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, String> entry : wanted.entrySet()) {
      String found = got.get(entry.getKey());
      if (!entry.getValue().equals(found)) {
        differences.add(entry.getKey() + "=" + found + " (wanted " + entry.getValue() + ")");
      }
    }
    got.keySet().stream().filter(key -> !wanted.containsKey(key)).limit(5)
        .forEach(key -> differences.add(key + " should be absent"));
    fail(what + ": " + wanted.size() + " records wanted, " + got.size() + " found; first differences: "
        + differences.subList(0, Math.min(10, differences.size())));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
  }
}
