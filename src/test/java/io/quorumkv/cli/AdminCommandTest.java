package io.quorumkv.cli;

import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The admin command's shared rules, against a real node: exit codes, one line a failure, fail-over, --json. */
class AdminCommandTest {
  @TempDir
  static Path dir;
  private static TestNode node;
  private static String url;

  @BeforeAll
  static void startNode() throws Exception {
    url = "http://127.0.0.1:" + freePort();
    node = TestNode.start(TestNode.config(dir.resolve("node"), new JsonObject().put("url", url)),
        java.time.InstantSource.system());
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  record Run(int status, String stdout, String stderr) {
  }

  static Run admin(Map<String, String> environment, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = AdminCommand.run(List.of(args), environment, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run admin(String... args) {
    return admin(Map.of(), args);
  }

  @Test
  void clusterPrintsEveryNodeOfTheTopologyAsATableOrAsJson() {
    Run table = admin("cluster", "--url", url);
    assertEquals(0, table.status(), table.stderr());
    assertTrue(table.stdout().contains(url + " (this)  normal  up"), table.stdout());
    Run json = admin("cluster", "--json", "--url", url);
    assertEquals(0, json.status(), json.stderr());
    assertEquals(url, new JsonObject(json.stdout()).getString("self"));
  }

  @Test
  void aNodeThatCannotBeReachedIsSkippedForTheNextUrl() throws Exception {
    String nobody = "http://127.0.0.1:" + freePort();
    Run run = admin("cluster", "--json", "--url", nobody + "," + url);
    assertEquals(0, run.status(), run.stderr());
    assertEquals(url, new JsonObject(run.stdout()).getString("self"));
  }

  @Test
  void whenNoUrlAnswersTheCommandSaysSoInOneLineAndExits1() throws Exception {
    String nobody = "http://127.0.0.1:" + freePort();
    Run run = admin("cluster", "--url", nobody);
    assertEquals(1, run.status());
    assertEquals(AdminCommand.PREFIX + "no node at " + nobody + " (connection refused)\n", run.stderr());
  }

  @Test
  void theUrlComesFromTheEnvironmentWhenNoOptionNamesIt() {
    Run run = admin(Map.of("QKV_URL", url), "cluster", "--json");
    assertEquals(0, run.status(), run.stderr());
    assertEquals(url, new JsonObject(run.stdout()).getString("self"));
  }

  @Test
  void argumentsItDoesNotTakeExit2WithTheUsage() {
    for (String[] args : List.of(new String[] {}, new String[] {"bogus"}, new String[] {"cluster", "extra"},
        new String[] {"cluster", "--url", "ftp://x"}, new String[] {"cluster", "--url"},
        new String[] {"cluster", "--cert", "c.pem"})) {
      Run run = admin(args);
      assertEquals(2, run.status(), List.of(args) + ": " + run.stderr());
      assertTrue(run.stderr().contains("usage: java -jar quorumkv.jar admin"), List.of(args) + ": " + run.stderr());
    }
  }

  @Test
  void helpPrintsTheUsageAndExits0() {
    for (String[] args : List.of(new String[] {"--help"}, new String[] {"cluster", "--help"})) {
      Run run = admin(args);
      assertEquals(0, run.status(), run.stderr());
      assertTrue(run.stdout().startsWith("usage: java -jar quorumkv.jar admin"), run.stdout());
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
