package io.quorumkv.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ConfigLoaderTest {

  @Test
  void theExampleConfsInTheRepoLoad() {
    NodeConfig single = ConfigLoader.load(Path.of("conf/single-node.json"));
    assertEquals(new NodeUrl("127.0.0.1", 8080), single.url());
    assertEquals(1, single.clusterSize());
    for (int port : new int[] {8080, 8081, 8082}) {
      NodeConfig node = ConfigLoader.load(Path.of("cluster/node-" + port + ".json"));
      assertEquals(3, node.clusterSize());
      assertEquals(port - 8080 + 5701, node.hazelcast().port());
    }
  }

  @Test
  void minimalConfGetsDocumentedDefaults() {
    NodeConfig config = ConfigLoader.parse(new JsonObject().put("url", "http://127.0.0.1:9000"));
    assertEquals(List.of(new NodeUrl("127.0.0.1", 9000)), config.cluster());
    assertEquals(Path.of("data"), config.dataDir());
    assertNull(config.hazelcast());
    assertEquals(16L << 20, config.maxBodyBytes());
    assertEquals(120_000, config.idleTimeoutMs());
    assertEquals(StorageConfig.defaults(), config.storage());
    assertEquals(Math.max(2, Runtime.getRuntime().availableProcessors()), config.storage().workers(),
        "a storage worker per core, at least two");
    assertEquals(2_000_000, config.storage().newKeyFilterKeys());
    assertEquals(3, config.replicationFactor());
  }

  @Test
  void replicationFactorIsAPositiveWholeNumber() {
    assertEquals(2, ConfigLoader.parse(base().put("replicationFactor", 2)).replicationFactor());
    assertEquals(5, ConfigLoader.parse(base().put("replicationFactor", 5)).replicationFactor(),
        "more than the conf's nodes is fine: the default from is capped by the cluster size");
    assertProblem("'replicationFactor' must be positive, got 0", base().put("replicationFactor", 0));
    assertProblem("'replicationFactor' must be positive, got -2", base().put("replicationFactor", -2));
    assertProblem("'replicationFactor' must be a whole number, got 2.5", base().put("replicationFactor", 2.5));
    assertProblem("'replicationFactor' must be a whole number, got \"three\"", base().put("replicationFactor", "three"));
    assertProblem("'replicationFactor' must be at most 1000, got 1001", base().put("replicationFactor", 1001));
  }

  @Test
  void newKeyFilterKeysZeroTurnsTheFilterOff() {
    NodeConfig config = ConfigLoader.parse(base().put("storage", new JsonObject().put("newKeyFilterKeys", 0)));
    assertEquals(0, config.storage().newKeyFilterKeys());
  }

  @Test
  void admissionBoundsDefaultToTheMeasuredOnesAndZeroTurnsThemOff() {
    assertEquals(AdmissionConfig.defaults(), ConfigLoader.parse(base()).admission());
    AdmissionConfig off = ConfigLoader.parse(base().put("admission.maxRequestsPerLoop", 0)
        .put("admission.maxQueuedStorage", 0)).admission();
    assertEquals(new AdmissionConfig(0, 0, 0), off);
    assertProblem("'admission.maxRequestsPerLoop' must be zero or positive, got -1",
        base().put("admission", new JsonObject().put("maxRequestsPerLoop", -1)));
    assertProblem("unknown key 'admission.maxRequests'", base().put("admission", new JsonObject().put("maxRequests", 1)));
  }

  @Test
  void idleTimeoutZeroMeansNever() {
    assertEquals(0, ConfigLoader.parse(base().put("idleTimeoutMs", 0)).idleTimeoutMs());
    assertEquals(5_000, ConfigLoader.parse(base().put("idleTimeoutMs", 5_000)).idleTimeoutMs());
  }

  @Test
  void keysThatTakeZeroRefuseFractionsThatRoundToZero() {
    assertProblem("'idleTimeoutMs' must be a whole number, got 0.5", base().put("idleTimeoutMs", 0.5));
    assertProblem("'hints.drainOnStopMs' must be a whole number, got 0.25",
        base().put("hints", new JsonObject().put("drainOnStopMs", 0.25)));
    assertProblem("'storage.purgeGraceMs' must be a whole number, got -0.5",
        base().put("storage", new JsonObject().put("purgeGraceMs", -0.5)));
    assertProblem("'idleTimeoutMs' must be zero or positive, got -1", base().put("idleTimeoutMs", -1));
    assertEquals(0, ConfigLoader.parse(base().put("idleTimeoutMs", 0.0)).idleTimeoutMs(), "0.0 is a whole zero");
    assertEquals(0, ConfigLoader.parse(base().put("hints", new JsonObject().put("drainOnStopMs", 0))).hints().drainOnStopMs());
  }

  @Test
  void clusterOrderDoesNotMatter() {
    JsonObject a = new JsonObject().put("url", "http://127.0.0.1:8081")
        .put("cluster", List.of("http://127.0.0.1:8082", "http://127.0.0.1:8081/", "http://127.0.0.1:8080"))
        .put("hazelcast", new JsonObject().put("port", 5702));
    JsonObject b = a.copy().put("cluster", List.of("http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://127.0.0.1:8082"));
    assertEquals(ConfigLoader.parse(a).cluster(), ConfigLoader.parse(b).cluster());
  }

  @Test
  void everyProblemIsOneLineNamingTheKey() {
    assertProblem("unknown key 'colour'", base().put("colour", "blue"));
    assertProblem("unknown key 'storage.cache'", base().put("storage", new JsonObject().put("cache", 1)));
    assertProblem("missing key 'url'", new JsonObject());
    assertProblem("'url' must be a string, got 8080", new JsonObject().put("url", 8080));
    assertProblem("'eventLoops' must be a whole number, got \"two\"", base().put("eventLoops", "two"));
    assertProblem("'eventLoops' must be positive, got 0", base().put("eventLoops", 0));
    assertProblem("'maxBodyBytes' must be a whole number, got 1.5", base().put("maxBodyBytes", 1.5));
    assertProblem("'storage.workers' must be at most 256, got 1000", base().put("storage", new JsonObject().put("workers", 1000)));
    assertProblem("'storage.newKeyFilterKeys' must be at most 20000000, got 20000001",
        base().put("storage", new JsonObject().put("newKeyFilterKeys", 20_000_001)));
    assertProblem("'storage.newKeyFilterKeys' must be zero or positive, got -1",
        base().put("storage", new JsonObject().put("newKeyFilterKeys", -1)));
    assertProblem("'cluster' must be a list of strings, holds 1", base().put("cluster", List.of(1)));
    assertProblem("url http://127.0.0.1:8080 is not in 'cluster'", base().put("cluster", List.of("http://127.0.0.1:8081")));
    assertProblem("'cluster' lists a node twice",
        base().put("cluster", List.of("http://127.0.0.1:8080", "http://127.0.0.1:8080/")));
    assertProblem("url: 'ftp://x:1' must look like http://host:port or https://host:port", new JsonObject().put("url", "ftp://x:1"));
    assertProblem("'hazelcast' is required when 'cluster' has more than one node",
        base().put("cluster", List.of("http://127.0.0.1:8080", "http://127.0.0.1:8081")));
    assertProblem("'hazelcast' must be an object, got 5701", base().put("hazelcast", 5701));
    assertProblem("unknown key 'hazelcast.group'", base().put("hazelcast", new JsonObject().put("group", "x")));
    assertProblem("'clusterSecret' must not be empty (leave it out for no secret)", base().put("clusterSecret", ""));
    assertProblem("'replicaTimeoutMs' must be positive, got -1", base().put("replicaTimeoutMs", -1));
    assertProblem("'idleTimeoutMs' must be a whole number, got \"60s\"", base().put("idleTimeoutMs", "60s"));
  }

  @Test
  void dottedKeysAreTheNestedOnes(@TempDir Path dir) throws IOException {
    Path dotted = Files.writeString(dir.resolve("dotted.json"), """
        {"url": "http://127.0.0.1:8080", "antiEntropy.intervalMs": 5000, "hints.windowMs": 60000,
         "hints": {"retryMs": 700}, "storage.workers": 3}""");
    NodeConfig config = ConfigLoader.load(dotted);
    NodeConfig nested = ConfigLoader.parse(base().put("antiEntropy", new JsonObject().put("intervalMs", 5000))
        .put("hints", new JsonObject().put("windowMs", 60_000).put("retryMs", 700))
        .put("storage", new JsonObject().put("workers", 3)));
    assertEquals(nested, config);
    assertEquals(5_000, config.antiEntropy().intervalMs());
    assertEquals(700, config.hints().retryMs(), "a nested key beside a dotted one of its section");
  }

  @Test
  void aKeyGivenDottedAndNestedIsRefused() {
    assertProblem("'antiEntropy.intervalMs' is given twice (dotted and nested); keep one",
        base().put("antiEntropy.intervalMs", 5000).put("antiEntropy", new JsonObject().put("intervalMs", 5000)));
    assertProblem("'antiEntropy.intervalMs' is given twice (dotted and nested); keep one",
        base().put("antiEntropy", new JsonObject().put("intervalMs", 5000)).put("antiEntropy.intervalMs", 6000));
    assertProblem("'hazelcast.port' needs 'hazelcast' to be an object, but it is set to a value",
        base().put("hazelcast", 5701).put("hazelcast.port", 5701));
    assertProblem("key 'hints..windowMs' has an empty part between its dots", base().put("hints..windowMs", 1));
    assertProblem("unknown key 'storage.cache'", base().put("storage.cache", 1));
    assertProblem("'storage.workers' must be at most 256, got 1000", base().put("storage.workers", 1000));
  }

  @Test
  void fileProblems(@TempDir Path dir) throws IOException {
    ConfigException missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.json")));
    assertEquals("conf file " + dir.resolve("nope.json") + " does not exist", missing.getMessage());

    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"url\": ");
    ConfigException notJson = assertThrows(ConfigException.class, () -> ConfigLoader.load(broken));
    assertFalse(notJson.getMessage().contains("\n"), notJson.getMessage());

    Path array = Files.writeString(dir.resolve("array.json"), "[1, 2]");
    assertThrows(ConfigException.class, () -> ConfigLoader.load(array));
  }

  @Test
  void tlsNeedsAnHttpsUrlItsFilesAndOneSchemeForAll(@TempDir Path dir) throws IOException {
    String cert = Files.writeString(dir.resolve("node.pem"), "x").toString();
    String key = Files.writeString(dir.resolve("node-key.pem"), "x").toString();
    String ca = Files.writeString(dir.resolve("ca.pem"), "x").toString();
    JsonObject files = new JsonObject().put("certFile", cert).put("keyFile", key).put("caFile", ca);
    NodeConfig config = ConfigLoader.parse(new JsonObject().put("url", "https://127.0.0.1:8443")
        .put("cluster", new JsonArray().add("https://127.0.0.1:8443").add("https://127.0.0.1:8444"))
        .put("hazelcast", new JsonObject().put("port", 5701).put("members", new JsonArray().add("127.0.0.1:5701")))
        .put("tls", files.copy().put("plainPort", 8080)));
    assertEquals(Path.of(ca), config.tls().caFile());
    assertEquals(8080, config.tls().plainPort());
    assertEquals(TlsConfig.DEFAULT_RELOAD_CHECK_MS, config.tls().reloadCheckMs());
    assertTrue(config.url().secure());
    assertEquals("https://127.0.0.1:8443", config.url().toString());
    assertEquals(new NodeUrl("127.0.0.1", 8443), config.url(), "a node is its host and port, whatever the scheme");
    assertNull(ConfigLoader.parse(base()).tls());

    assertProblem("an https url needs a 'tls' section (certFile, keyFile, caFile)",
        new JsonObject().put("url", "https://127.0.0.1:8443"));
    assertProblem("'tls' needs an https url, not http://127.0.0.1:8080", base().put("tls", files));
    assertProblem("missing key 'tls.keyFile'", new JsonObject().put("url", "https://127.0.0.1:8443")
        .put("tls", new JsonObject().put("certFile", cert)));
    assertProblem("'tls.certFile': " + dir.resolve("missing.pem") + " is not a readable file",
        new JsonObject().put("url", "https://127.0.0.1:8443")
            .put("tls", files.copy().put("certFile", dir.resolve("missing.pem").toString())));
    assertProblem("'cluster' lists http://127.0.0.1:8444, but the url is https://127.0.0.1:8443: every node uses one scheme",
        new JsonObject().put("url", "https://127.0.0.1:8443").put("tls", files)
            .put("cluster", new JsonArray().add("https://127.0.0.1:8443").add("http://127.0.0.1:8444")));
    assertProblem("'tls.caFile' (the cluster's CA) is required when 'cluster' has more than one node",
        new JsonObject().put("url", "https://127.0.0.1:8443").put("tls", files.copy().putNull("caFile"))
            .put("cluster", new JsonArray().add("https://127.0.0.1:8443").add("https://127.0.0.1:8444")));
    assertProblem("'tls.plainPort' 8443 is the url's own port",
        new JsonObject().put("url", "https://127.0.0.1:8443").put("tls", files.copy().put("plainPort", 8443)));
  }

  private static JsonObject base() {
    return new JsonObject().put("url", "http://127.0.0.1:8080");
  }

  private static void assertProblem(String expected, JsonObject json) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(json));
    assertEquals(expected, e.getMessage());
  }
}
