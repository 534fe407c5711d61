package io.quorumkv.cli;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.ReplicaCopy;
import io.quorumkv.support.TestCertificates;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin command's cluster subcommands (status, metrics, join, leave, remove, abort, repair) run
 * in-process against two 2-node clusters of real processes: one plain, one on https with API tokens.
 * Each cluster is started once; the tests that change a topology run last on their cluster.
 */
@ProcessTier
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterOpsCommandTest {
  private static final String READER = "reader-3f81c2";
  private static final String OPS = "ops-92d0ab";
  /** A port of this class's range with no node on it. */
  private static final String NOBODY = "http://127.0.0.1:19599";

  @TempDir
  static Path dir;
  static ProcessCluster plain;
  static ProcessCluster secure;
  static TestCertificates certificates;

  /** What one run of the command gave. */
  record Run(int exit, String out, String err) {
    JsonObject json() {
      return new JsonObject(out);
    }

    String describe() {
      return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  @BeforeAll
  static void startClusters() throws Exception {
    // Hints expire at once and no scheduled exchange comes during the class: only a repair can fix a replica.
    JsonObject quiet = new JsonObject().put("replicaTimeoutMs", 3_000)
        .put("hints", new JsonObject().put("windowMs", 1).put("retryMs", 200))
        .put("antiEntropy", new JsonObject().put("intervalMs", 3_600_000));
    plain = ProcessCluster.start(new ProcessCluster.Options(2).conf(quiet).jvmOptions("-Xmx96m")
        .startTimeout(Duration.ofSeconds(120)), Files.createDirectories(dir.resolve("plain")));
    certificates = TestCertificates.make(dir.resolve("certs"));
    JsonObject tokens = quiet.copy().put("auth", new JsonObject().put("tokens", new JsonArray()
        .add(new JsonObject().put("name", "reader").put("role", "read").put("token", READER))
        .add(new JsonObject().put("name", "ops").put("role", "admin").put("token", OPS))));
    secure = ProcessCluster.start(new ProcessCluster.Options(2).conf(tokens).tls(certificates).token(OPS).jvmOptions("-Xmx96m")
        .startTimeout(Duration.ofSeconds(120)), Files.createDirectories(dir.resolve("secure")));
  }

  @AfterAll
  static void stopClusters() {
    if (plain != null) {
      plain.close();
    }
    if (secure != null) {
      secure.close();
    }
  }

  static Run admin(Map<String, String> environment, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = AdminCommand.run(List.of(args), environment, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run admin(String... args) {
    return admin(Map.of(), args);
  }

  /** The command against the TLS cluster, trusting its CA, with this token. */
  static Run secured(String token, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--cacert", certificates.ca().toString()));
    return admin(Map.of("QKV_TOKEN", token), all.toArray(String[]::new));
  }

  static void assertFails(Run run, int exit, String... fragments) {
    assertEquals(exit, run.exit(), run.describe());
    assertEquals("", run.out(), run.describe());
    String first = run.err().lines().findFirst().orElse("");
    if (exit == 1) {
      assertEquals(1, run.err().lines().count(), "one line: " + run.describe());
    }
    for (String fragment : fragments) {
      assertTrue(first.contains(fragment), "'" + fragment + "' in: " + run.describe());
    }
  }

  @Test
  @Order(1)
  void repairCopiesAWriteOneReplicaMissedAtOnce() {
    Http node0 = plain.http(0);
    assertEquals(201, node0.put("/v0/entity?id=repaired-key&ack=2&from=2", "old").statusCode());
    ReplicaCopy old = plain.copy(0, "repaired-key");
    // A newer version on node 0 only, as a replica that took a write its peer missed holds it.
    assertEquals(201, node0.send("PUT", InternalEndpoint.RECORD_PUT.path() + "?id=repaired-key",
        HttpRequest.BodyPublishers.ofString("new"), ApiHeaders.VERSION, Long.toString(old.version() + 1),
        RecordHeaders.TOMBSTONE, "0", RecordHeaders.EXPIRES_AT, "0", RecordHeaders.REPLICAS, "2").statusCode());
    assertEquals("old", plain.copy(1, "repaired-key").value(), "node 1 missed the newer version");

    Run repair = admin("repair", "--url", plain.url(1));
    assertEquals(0, repair.exit(), repair.describe());
    assertTrue(repair.out().contains("repaired"), repair.describe());
    assertEquals("new", plain.copy(1, "repaired-key").value(), "node 1 holds the newer version right after the repair");

    Run json = admin("repair", "--one-node", "--json", "--url", plain.url(0));
    assertEquals(0, json.exit(), json.describe());
    JsonObject round = json.json().getJsonArray("rounds").getJsonObject(0);
    assertEquals(plain.url(0), round.getString("node"));
    JsonObject peer = round.getJsonArray("peers").getJsonObject(0);
    assertEquals("repaired", peer.getString("outcome"), json.describe());
    assertEquals(0, peer.getLong("keysDiffering"), "nothing left to repair: " + json.describe());
  }

  @Test
  @Order(2)
  void metricsSummariseTheRequestsStorageAndHeap() {
    Run table = admin("metrics", "--url", NOBODY + "," + plain.url(0));
    assertEquals(0, table.exit(), table.describe());
    assertTrue(table.out().contains("PUT") && table.out().contains("201"), table.describe());
    assertTrue(table.out().contains("jvm heap:"), table.describe());

    Run json = admin("metrics", "--json", "--url", plain.url(0));
    assertEquals(0, json.exit(), json.describe());
    JsonObject summary = json.json();
    assertEquals(plain.url(0), summary.getString("node"));
    assertTrue(summary.getJsonObject("jvm").getLong("heapMaxBytes") > 0, json.describe());
    assertTrue(summary.getJsonArray("requests").stream().map(JsonObject.class::cast)
        .anyMatch(entry -> entry.getString("method").equals("PUT") && entry.getLong("count") > 0), json.describe());
  }

  @Test
  @Order(3)
  void failuresAreOneLine() {
    assertFails(admin("status", "--url", NOBODY), 1, "connection refused");
    assertFails(admin("abort", "--url", plain.url(0)), 1, "409", "no change in progress");
    assertFails(admin("remove", plain.url(1), "--url", plain.url(0)), 1, "409", "is alive");
    assertFails(admin("remove", "--url", plain.url(0)), 2, "which node?");
    assertFails(admin("leave", "--wait", "--timeout", "soon", "--url", plain.url(0)), 2, "--timeout");
    assertFails(admin("join", "--url", NOBODY), 1, "connection refused");
  }

  @Test
  @Order(4)
  void statusOverTlsWithTokens() {
    Run status = secured(READER, "status", "--url", secure.url(0));
    assertEquals(0, status.exit(), status.describe());
    for (int node = 0; node < 2; node++) {
      int index = node;
      assertTrue(status.out().lines().anyMatch(line -> line.startsWith(secure.url(index)) && line.contains("UP")
          && line.contains("normal")), status.describe());
    }
    Run json = secured(READER, "status", "--json", "--url", secure.url(1));
    assertEquals(0, json.exit(), json.describe());
    JsonArray nodes = json.json().getJsonArray("nodes");
    assertEquals(2, nodes.size(), json.describe());
    for (Object node : nodes) {
      JsonObject row = (JsonObject) node;
      assertTrue(row.getBoolean("alive") && row.getBoolean("answers"), json.describe());
      assertFalse(row.containsKey("zone"), "no zone column without zones: " + json.describe());
      assertTrue(row.containsKey("dataBytes") && row.containsKey("keysEstimate"), json.describe());
    }

    assertFails(secured("not-a-token", "status", "--url", secure.url(0)), 1, "401");
    assertFails(secured(READER, "repair", "--url", secure.url(0)), 1, "403");
    assertFails(secured(READER, "leave", "--url", secure.url(1)), 1, "403");
    assertFails(secured("not-a-token", "status", "--url", secure.url(0)), 1, "401 unknown token");
    String plainUrl = secure.url(0).replace("https:", "http:");
    assertFails(admin(Map.of("QKV_TOKEN", READER), "status", "--url", plainUrl), 1,
        "speaks TLS: use " + secure.url(0));
    assertFails(admin(Map.of("QKV_TOKEN", READER), "status", "--url", secure.url(0)), 1, "is not trusted");
  }

  @Test
  @Order(5)
  void repairOverTlsWithAnAdminToken() {
    Run repair = secured(OPS, "repair", "--url", secure.url(0));
    assertEquals(0, repair.exit(), repair.describe());
    assertEquals(2, repair.out().lines().filter(line -> line.contains(" repaired ")).count(),
        "each node repaired with the other: " + repair.describe());
  }

  @Test
  @Order(6)
  void aNodeJoinsIsSeenDownWhenKilledAndIsRemoved() throws Exception {
    int joiner = plain.launchNewNode(new JsonObject());
    String url = plain.url(joiner);
    Run join = admin("join", "--wait", "--url", url);
    assertEquals(0, join.exit(), join.describe());
    assertTrue(join.out().contains(url + " is a normal member"), join.describe());

    plain.kill(joiner);
    plain.awaitSeenDown(joiner);
    Run status = admin("status", "--url", plain.url(0));
    assertEquals(0, status.exit(), status.describe());
    assertTrue(status.out().lines().anyMatch(line -> line.startsWith(url) && line.contains("DOWN")), status.describe());
    assertTrue(status.out().lines().anyMatch(line -> line.startsWith(plain.url(1)) && line.contains("UP")),
        status.describe());
    assertFails(admin("leave", "--url", plain.url(1)), 1, "409", "down");

    Run remove = admin("remove", url, "--wait", "--timeout", "120", "--url", plain.url(0));
    assertEquals(0, remove.exit(), remove.describe());
    assertTrue(remove.out().contains(url + " is out of the cluster"), remove.describe());
    plain.retire(joiner);
    assertTrue(plain.stableEverywhere(), plain.topologyViews());
  }

  @Test
  @Order(7)
  void aNodeLeavesOverTlsAndStops() throws Exception {
    Run leave = secured(OPS, "leave", "--wait", "--timeout", "120", "--url", secure.url(1));
    assertEquals(0, leave.exit(), leave.describe());
    assertTrue(leave.out().contains(secure.url(1) + " stopped"), leave.describe());
    assertEquals(0, secure.awaitExit(1, Duration.ofSeconds(30)), "the node that left exits by itself");
  }
}
