package io.quorumkv;

import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static io.quorumkv.support.Http.text;
import static io.quorumkv.support.NodeProcess.jsonPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node as a process: durability through kill -9, a clean SIGTERM, and conf errors as one line. */
@ProcessTier
class NodeProcessTest {

  @TempDir
  Path dir;

  /** RocksJava's copy of its native library (17 MB a start) used to stay in the temp directory after kill -9. */
  @Test
  void aKilledNodeLeavesNoCopyOfRocksDbsLibraryBehind() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Path conf = conf(0, dir.resolve("data"));
    for (int start = 0; start < 2; start++) {
      try (NodeProcess node = NodeProcess.launch(dir.resolve("node-" + start + ".log"),
          List.of("-Djava.io.tmpdir=" + tmp), "--config", conf.toString())) {
        node.awaitReady();
        assertEquals(201, node.http().put("/v0/entity?id=k" + start, "v").statusCode());
        node.kill();
      }
    }
    try (Stream<Path> files = Files.list(tmp)) {
      List<String> copies = files.map(file -> file.getFileName().toString())
          .filter(name -> name.startsWith("librocksdbjni")).toList();
      assertTrue(copies.isEmpty(), "left in the temp directory: " + copies);
    }
  }

  @Test
  void acknowledgedWritesSurviveKill9() throws Exception {
    Path conf = conf(0, dir.resolve("data"));
    int writes = 300;
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("first.log"))) {
      node.awaitReady();
      Http http = node.http();
      for (int i = 0; i < writes; i++) {
        http.putEntity("key-" + i, "value-" + i);
      }
      http.delete("/v0/entity?id=key-0");
      node.kill();
    }
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("second.log"))) {
      node.awaitReady();
      Http http = node.http();
      assertEquals(404, http.get("/v0/entity?id=key-0").statusCode());
      for (int i = 1; i < writes; i++) {
        assertEquals("value-" + i, text(http.get("/v0/entity?id=key-" + i)), "key-" + i);
      }
    }
  }

  @Test
  void sigtermStopsCleanlyAndKeepsData() throws Exception {
    Path conf = conf(0, dir.resolve("data"));
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("first.log"))) {
      node.awaitReady();
      node.http().putEntity("k", "v");
      node.terminate();
      assertTrue(node.log().contains("quorumkv: stopped"), node.log());
      assertFalse(node.log().contains("Exception"), node.log());
    }
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("second.log"))) {
      node.awaitReady();
      assertEquals("v", text(node.http().get("/v0/entity?id=k")));
    }
  }

  @Test
  void missingConfFile() throws Exception {
    assertOneLineFailure("conf error: conf file " + dir.resolve("absent.json") + " does not exist",
        "--config", dir.resolve("absent.json").toString());
  }

  @Test
  void unknownKey() throws Exception {
    Path conf = NodeProcess.writeConf(dir, "bad.json", "{\"url\": \"http://127.0.0.1:0\", \"colour\": 1}");
    assertOneLineFailure("conf error: unknown key 'colour'", "--config", conf.toString());
  }

  @Test
  void wrongType() throws Exception {
    Path conf = NodeProcess.writeConf(dir, "bad.json", "{\"url\": \"http://127.0.0.1:0\", \"eventLoops\": \"2\"}");
    assertOneLineFailure("conf error: 'eventLoops' must be a whole number, got \"2\"", "--config", conf.toString());
  }

  @Test
  void urlNotInCluster() throws Exception {
    Path conf = NodeProcess.writeConf(dir, "bad.json",
        "{\"url\": \"http://127.0.0.1:8080\", \"cluster\": [\"http://127.0.0.1:8081\"]}");
    assertOneLineFailure("conf error: url http://127.0.0.1:8080 is not in 'cluster'", "--config", conf.toString());
  }

  @Test
  void portTaken() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Path conf = conf(port, dir.resolve("data"));
      String line = failureLine("--config", conf.toString());
      assertTrue(line.startsWith("quorumkv: cannot listen on 127.0.0.1:" + port + ": "), line);
    }
  }

  @Test
  void dataDirNotWritable() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    Path conf = conf(0, file.resolve("data"));
    String line = failureLine("--config", conf.toString());
    assertTrue(line.startsWith("quorumkv: conf error: dataDir " + file.resolve("data") + " cannot be created"), line);
  }

  @Test
  void dataDirInUseByAnotherNode() throws Exception {
    Path data = dir.resolve("data");
    try (NodeProcess first = NodeProcess.launchWithConfig(conf(0, data), dir.resolve("first.log"))) {
      first.awaitReady();
      String line = failureLine("--config", conf(0, data).toString());
      assertTrue(line.startsWith("quorumkv: cannot start: cannot open RocksDB in " + data), line);
    }
  }

  @Test
  void badArgumentsPrintUsage() throws Exception {
    try (NodeProcess node = NodeProcess.launch(dir.resolve("args.log"), "--confg", "x")) {
      assertEquals(2, node.awaitExit());
      assertTrue(node.log().contains("usage: java -jar quorumkv.jar [--config FILE]"), node.log());
    }
  }

  private Path conf(int port, Path dataDir) throws IOException {
    return NodeProcess.writeConf(dir, "node-" + System.nanoTime() + ".json",
        "{\"url\": \"http://127.0.0.1:" + port + "\", \"dataDir\": \"" + jsonPath(dataDir) + "\", \"eventLoops\": 1}");
  }

  private void assertOneLineFailure(String expected, String... args) throws Exception {
    assertEquals("quorumkv: " + expected, failureLine(args));
  }

  /** Runs the node, expects a non-zero exit with exactly one line on stderr, and returns that line. */
  private String failureLine(String... args) throws Exception {
    try (NodeProcess node = NodeProcess.launch(dir.resolve("fail-" + System.nanoTime() + ".log"), args)) {
      int exit = node.awaitExit();
      assertNotEquals(0, exit, node.log());
      List<String> lines = node.log().lines().toList();
      assertEquals(1, lines.size(), "expected one line, got: " + node.log());
      return lines.get(0);
    }
  }
}
