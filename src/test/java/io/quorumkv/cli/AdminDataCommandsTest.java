package io.quorumkv.cli;

import io.quorumkv.backup.NodeBackup;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.TestCertificates;
import io.quorumkv.support.TestFiles;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin command's data subcommands run in this JVM against real node processes: a plain
 * 2-node cluster (a cluster backup gathered here, a rerun that skips what is here, a damaged and a
 * cut file fetched again, a restore of the copy into a fresh node; JFR start, list, stop, flame
 * graph and file) and a TLS cluster with tokens (a backup copied off over https; 401, 403, 404 and
 * an unreachable node each one line with exit status 1).
 */
@ProcessTier
class AdminDataCommandsTest {
  private static final int KEYS = 300;
  private static final String ADMIN = "admin-token-5e1f";
  private static final String READER = "read-token-0a7c";
  /** In the ports of this test's range that nothing listens on. */
  private static final String NO_NODE = "http://127.0.0.1:19699";

  @RegisterExtension
  static final ClusterExtension CLUSTERS = new ClusterExtension();
  private static ProcessCluster plain;
  private static ProcessCluster secure;
  private static TestCertificates certificates;
  private static Path work;

  @BeforeAll
  static void startClusters() throws IOException {
    work = Files.createTempDirectory("admin-data-test");
    plain = CLUSTERS.start(new ProcessCluster.Options(2).jvmOptions("-Xmx128m"));
    for (int i = 0; i < KEYS; i++) {
      assertEquals(201, plain.http(i % 2).put("/v0/entity?id=" + key(i) + "&ack=2&from=2", "value-" + i).statusCode());
    }
    certificates = TestCertificates.make(work.resolve("certs"));
    secure = CLUSTERS.start(new ProcessCluster.Options(2).tls(certificates).token(ADMIN).jvmOptions("-Xmx128m")
        .conf(new JsonObject().put("auth", new JsonObject().put("tokens", new JsonArray()
            .add(new JsonObject().put("name", "ops").put("role", "admin").put("token", ADMIN))
            .add(new JsonObject().put("name", "reader").put("role", "read").put("token", READER)))))
        .startTimeout(Duration.ofSeconds(120)));
    for (int i = 0; i < 50; i++) {
      assertEquals(201, secure.http(0).send("PUT", "/v0/entity?id=" + key(i), HttpRequest.BodyPublishers.ofString("s"),
          "Authorization", "Bearer " + ADMIN).statusCode());
    }
  }

  @AfterAll
  static void deleteWork() throws IOException {
    if (work != null) {
      TestFiles.deleteTree(work);
    }
  }

  @Test
  void aClusterBackupIsGatheredHereResumedAndRestoredIntoAFreshNode() throws IOException {
    Run taken = admin("backup", "--cluster", "--name", "nightly", "--url", plain.url(0));
    assertEquals(0, taken.exit, taken.err);
    assertTrue(taken.out.contains(plain.url(0)) && taken.out.contains(plain.url(1)), taken.out);

    Run listed = admin("backups", "--json", "--url", plain.url(1));
    assertEquals(0, listed.exit, listed.err);
    JsonArray nodes = new JsonArray(listed.out);
    assertEquals(2, nodes.size(), listed.out);
    nodes.forEach(node -> assertTrue(Subcommands.objects(((JsonObject) node).getJsonArray("backups")).stream()
        .anyMatch(backup -> backup.getString("name").equals("nightly")), listed.out));

    Path copy = work.resolve("offsite");
    JsonObject first = fetched(admin("backups", "fetch", "nightly", "--to", copy.toString(), "--json", "--url",
        plain.url(0)));
    parts(first).forEach(part -> assertEquals(part.getInteger("files"), part.getInteger("fetched"), first.encode()));

    JsonObject again = fetched(admin("backups", "fetch", "nightly", "--to", copy.toString(), "--json", "--url",
        plain.url(0)));
    parts(again).forEach(part -> assertEquals(0, part.getInteger("fetched"), "a rerun fetches nothing: " + again.encode()));

    Path part = copy.resolve(BackupFetch.partName(java.net.URI.create(plain.url(0))));
    List<Path> files = largestFirst(part.resolve("rocksdb"));
    Path damaged = files.get(0);
    byte[] intact = Files.readAllBytes(damaged);
    byte[] flipped = intact.clone();
    flipped[flipped.length / 2] ^= 0x5a;
    Files.write(damaged, flipped);
    Path cut = files.get(1);
    byte[] whole = Files.readAllBytes(cut);
    Files.delete(cut);
    Files.write(cut.resolveSibling(cut.getFileName() + ".part"), java.util.Arrays.copyOf(whole, whole.length / 2));
    JsonObject repaired = fetched(admin("backups", "fetch", "nightly", "--to", copy.toString(), "--json", "--url",
        plain.url(0)));
    JsonObject repairedPart = parts(repaired).stream().filter(p -> p.getString("node").equals(plain.url(0)))
        .findFirst().orElseThrow();
    // The damaged file, the cut one, and the manifest, taken away while the part was incomplete.
    assertEquals(3, repairedPart.getInteger("fetched"), repaired.encode());
    assertEquals(1, repairedPart.getInteger("replaced"), repaired.encode());
    assertEquals(1, repairedPart.getInteger("resumed"), repaired.encode());
    assertArrayEquals(intact, Files.readAllBytes(damaged));
    assertArrayEquals(whole, Files.readAllBytes(cut));
    assertEquals(2, NodeBackup.under(copy).size());

    ProcessCluster fresh = CLUSTERS.start(new ProcessCluster.Options(1).jvmOptions("-Xmx128m"));
    Run restored = admin("restore", "--from", copy.toString(), "--rate", "100000", "--progress",
        work.resolve("restore-progress.json").toString(), "--url", fresh.url(0));
    assertEquals(0, restored.exit, restored.err);
    for (int i = 0; i < KEYS; i++) {
      assertEquals("value-" + i, Http.text(fresh.http(0).get("/v0/entity?id=" + key(i))), key(i));
    }
  }

  @Test
  void aBackupFilePathMustBeOneTheBackupLists() {
    assertEquals(0, admin("backup", "--name", "paths", "--url", plain.url(1)).exit);
    Http node = plain.http(1);
    assertEquals(200, node.get("/admin/backup/file?name=paths&path=manifest.json").statusCode());
    for (String path : List.of("../../node-1.json", "rocksdb/../manifest.json", "/etc/passwd", "SHA256SUMS")) {
      int status = node.get("/admin/backup/file?name=paths&path=" + Http.encode(path)).statusCode();
      assertEquals(404, status, path);
    }
    assertEquals(400, node.get("/admin/backup/files?name=" + Http.encode("../backups")).statusCode());
  }

  @Test
  void jfrRecordingsStartListStopAndComeBackAsAPageAndAFile() throws IOException {
    Run started = admin("jfr", "start", "admin-test", "--duration", "60000", "--url", plain.url(0));
    assertEquals(0, started.exit, started.err);
    Run listed = admin("jfr", "list", "--json", "--url", plain.url(0));
    assertEquals(0, listed.exit, listed.err);
    assertTrue(new JsonArray(listed.out).stream().map(JsonObject.class::cast)
        .filter(node -> node.getString("node").equals(plain.url(0)))
        .anyMatch(node -> node.getJsonArray("recordings").encode().contains("\"admin-test\"")), listed.out);
    assertEquals(0, admin("jfr", "stop", "admin-test", "--url", plain.url(0)).exit);
    Path page = work.resolve("flame/admin-test.html");
    Run flame = admin("jfr", "flame", "admin-test", "--type", "alloc", "--out", page.toString(), "--url", plain.url(0));
    assertEquals(0, flame.exit, flame.err);
    assertTrue(Files.readString(page).contains("<html"), "a flame graph page");
    Path recording = work.resolve("admin-test.jfr");
    Run file = admin("jfr", "fetch", "admin-test", "--out", recording.toString(), "--url", plain.url(0));
    assertEquals(0, file.exit, file.err);
    assertTrue(Files.size(recording) > 0);
  }

  @Test
  void aBackupIsCopiedOffOverHttpsWithAnAdminToken() {
    Path copy = work.resolve("secure-offsite");
    Run taken = admin("backup", "--cluster", "--name", "secure", "--copy-to", copy.toString(), "--url", secure.url(1),
        "--token", ADMIN, "--cacert", certificates.ca().toString());
    assertEquals(0, taken.exit, taken.err);
    List<NodeBackup> parts = NodeBackup.under(copy);
    assertEquals(2, parts.size());
    parts.forEach(NodeBackup::verify);
    assertTrue(taken.err.contains("fetch: ") && taken.err.contains(" files, "), "progress on stderr: " + taken.err);
  }

  @Test
  void eachFailureIsOneLineAndExitStatusOne() {
    String ca = certificates.ca().toString();
    assertFailure(admin("backups", "--url", secure.url(0), "--token", "not-a-token", "--cacert", ca), "401");
    assertFailure(admin("backups", "--url", secure.url(0), "--token", READER, "--cacert", ca), "403");
    assertFailure(admin("backups", "fetch", "absent", "--to", work.resolve("absent").toString(), "--node",
        "--url", secure.url(0), "--token", ADMIN, "--cacert", ca), "404 no backup named absent");
    assertFailure(admin("backups", "delete", "absent", "--url", secure.url(0), "--token", ADMIN, "--cacert", ca),
        "404 no backup named absent");
    assertFailure(admin("jfr", "flame", "absent", "--out", work.resolve("absent.html").toString(), "--url",
        secure.url(0), "--token", ADMIN, "--cacert", ca), "404");
    assertFailure(admin("backups", "--url", NO_NODE), "connection refused");
    assertFalse(Files.exists(work.resolve("absent.html")));
  }

  private static void assertFailure(Run run, String expected) {
    assertEquals(1, run.exit, run.out + run.err);
    List<String> lines = run.err.lines().filter(line -> line.startsWith("quorumkv admin: ")).toList();
    assertEquals(1, lines.size(), run.err);
    assertTrue(lines.get(0).contains(expected), run.err);
    assertFalse(run.err.contains("Exception"), run.err);
  }

  private static JsonObject fetched(Run run) {
    assertEquals(0, run.exit, run.err);
    return new JsonObject(run.out);
  }

  private static List<JsonObject> parts(JsonObject fetched) {
    List<JsonObject> parts = Subcommands.objects(fetched.getJsonArray("parts"));
    assertEquals(2, parts.size(), fetched.encode());
    return parts;
  }

  private static List<Path> largestFirst(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> sorted = new ArrayList<>(files.toList());
      sorted.sort(Comparator.comparingLong((Path file) -> file.toFile().length()).reversed());
      return sorted;
    }
  }

  private static String key(int i) {
    return String.format("key-%04d", i);
  }

  private record Run(int exit, String out, String err) {
  }

  private static Run admin(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = AdminCommand.run(List.of(args), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
