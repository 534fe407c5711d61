package io.quorumkv;

import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.TestCluster;
import io.quorumkv.web.PemSslContext;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code TLS=1 CLUSTER_HOME=DIR cluster/start.sh} makes a secure cluster in one step: certificates,
 * a cluster secret and a tokens file with one token per role, all under DIR; and the cluster
 * scripts read it through the tokens. Runs the scripts on target/quorumkv.jar, two nodes.
 */
@ProcessTier
class TlsClusterScriptsTest {
  /** The ports this class asks for first; taken ones (another test's), it picks as TestCluster does. */
  private static final List<Integer> PREFERRED_PORTS = List.of(19310, 19311, 19320, 19321);
  private static final Path JAR = Path.of("target", "quorumkv.jar");
  private final List<Integer> ports = PREFERRED_PORTS.stream().allMatch(TlsClusterScriptsTest::free)
      ? PREFERRED_PORTS : TestCluster.freePorts(PREFERRED_PORTS.size());
  private final List<Integer> httpPorts = ports.subList(0, 2);
  private final List<Integer> hazelcastPorts = ports.subList(2, 4);

  @TempDir
  Path home;

  @Test
  void tlsStartMakesTokensPerRoleAndTheScriptsReadTheClusterWithThem() throws Exception {
    assertTrue(Files.exists(JAR), "the scripts start " + JAR + ": build it first (mvn package)");
    writePlainConfs();
    Path tls = home.resolve("tls");
    try {
      Run start = script("start.sh", Map.of());
      assertEquals(0, start.status(), start.output());
      Path tokensFile = tls.resolve("tokens.json");
      JsonArray tokens = new JsonArray(Files.readString(tokensFile));
      Map<String, String> byRole = roles(tokens);
      assertEquals(Set.of("read", "write", "admin"), byRole.keySet(), tokens.encode());
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokensFile)));
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.resolve("cluster-secret"))));
      byRole.values().forEach(token -> assertTrue(start.output().contains(token), "printed when made: " + start.output()));
      assertUp(start);

      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .sslContext(PemSslContext.of(tls.resolve("certs/ca.pem"), null, null)).build();
      URI entity = URI.create("https://127.0.0.1:" + httpPorts.get(0) + "/v0/entity?id=k1");
      assertEquals(401, client.send(put(entity).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
      assertEquals(201, client.send(put(entity).header("Authorization", "Bearer " + byRole.get("write")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode());

      Run status = script("status.sh", Map.of());
      assertEquals(0, status.status(), status.output());
      assertUp(status);
      for (int port : httpPorts) {
        assertTrue(status.output().lines().anyMatch(line -> line.matches("https://127\\.0\\.0\\.1:" + port + " +UP +normal .*")),
            "admin status's row of " + port + ": " + status.output());
      }
      Run refused = script("status.sh", Map.of("QKV_TOKEN", "not-a-token"));
      assertEquals(1, refused.status(), refused.output());
      for (int port : httpPorts) {
        assertTrue(refused.output().lines().anyMatch(line -> line.startsWith("node " + port + " CANNOT BE READ")
            && line.contains("401 unknown token (sent the token of QKV_TOKEN")), refused.output());
      }

      Run again = script("start.sh", Map.of());
      assertEquals(0, again.status(), again.output());
      byRole.values().forEach(token -> assertFalse(again.output().contains(token), "printed again: " + again.output()));
      assertEquals(byRole, roles(new JsonArray(Files.readString(tokensFile))), "a later start keeps the tokens");
    } finally {
      List<ProcessHandle> nodes = nodes(tls.resolve("run"));
      Run stop = script("stop.sh", Map.of());
      List<ProcessHandle> left = nodes.stream().filter(TlsClusterScriptsTest::running).toList();
      left.forEach(ProcessHandle::destroyForcibly);
      assertEquals(0, stop.status(), stop.output());
      assertEquals(httpPorts.size(), nodes.size(), "nodes started");
      assertEquals(List.of(), left, "left running by stop.sh: " + stop.output());
    }
  }

  private void assertUp(Run run) {
    for (int port : httpPorts) {
      assertTrue(run.output().lines().anyMatch(line -> line.startsWith("node " + port + " UP")
          && line.contains("sees alive: ") && httpPorts.stream().allMatch(alive -> line.contains("127.0.0.1:" + alive))),
          run.output());
    }
  }

  private static HttpRequest.Builder put(URI uri) {
    return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.ofString("hello"));
  }

  private static Map<String, String> roles(JsonArray tokens) {
    return tokens.stream().map(JsonObject.class::cast)
        .collect(Collectors.toMap(token -> token.getString("role"), token -> token.getString("token")));
  }

  /** The plain confs of a two-node cluster, as CLUSTER_HOME holds them: TLS=1 makes its own from them. */
  private void writePlainConfs() throws IOException {
    String urls = httpPorts.stream().map(port -> "\"http://127.0.0.1:" + port + "\"").collect(Collectors.joining(", "));
    String members = hazelcastPorts.stream().map(port -> "\"127.0.0.1:" + port + "\"").collect(Collectors.joining(", "));
    for (int i = 0; i < httpPorts.size(); i++) {
      int port = httpPorts.get(i);
      Files.writeString(home.resolve("node-" + port + ".json"), "{\"url\": \"http://127.0.0.1:" + port + "\", \"dataDir\": \""
          + home.resolve("data/node-" + port) + "\", \"eventLoops\": 2, \"cluster\": [" + urls + "], \"hazelcast\": {\"port\": "
          + hazelcastPorts.get(i) + ", \"members\": [" + members + "], \"clusterName\": \"scripts-test-" + home.getFileName() + "\"}}\n");
    }
  }

  /** The node processes the scripts started, from their pid files. */
  private static List<ProcessHandle> nodes(Path run) throws IOException {
    if (!Files.isDirectory(run)) {
      return List.of();
    }
    List<ProcessHandle> nodes = new ArrayList<>();
    try (Stream<Path> files = Files.list(run)) {
      for (Path pid : files.filter(file -> file.toString().endsWith(".pid")).toList()) {
        ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(nodes::add);
      }
    }
    return nodes;
  }

  private static boolean free(int port) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  /** Running, as the scripts count it: a node that exited but is not reaped yet (a zombie, whose parent exited) is not. */
  private static boolean running(ProcessHandle process) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException gone) {
      return false;
    }
  }

  private record Run(int status, String output) {
  }

  /** cluster/SCRIPT with TLS=1 and CLUSTER_HOME, small heaps, the jar as built; stdout and stderr together. */
  private Run script(String name, Map<String, String> environment) throws IOException, InterruptedException {
    Path output = Files.createTempFile(home, name, ".out");
    ProcessBuilder builder = new ProcessBuilder("bash", Path.of("cluster", name).toString())
        .redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().putAll(Map.of("TLS", "1", "CLUSTER_HOME", home.toString(), "BUILD", "0", "HEAP", "96m",
        "JAVA_OPTS", "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:-UsePerfData"));
    builder.environment().remove("QKV_TOKEN");
    builder.environment().remove("QKV_ADMIN_TOKEN");
    builder.environment().putAll(environment);
    Process process = builder.start();
    boolean finished = process.waitFor(180, TimeUnit.SECONDS);
    process.destroyForcibly();
    assertTrue(finished, "cluster/" + name + " did not finish in 180 s: " + Files.readString(output));
    return new Run(process.exitValue(), Files.readString(output));
  }
}
