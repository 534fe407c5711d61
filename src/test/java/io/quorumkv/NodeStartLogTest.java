package io.quorumkv;

import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a cluster node's log says at start: what the node is and where, and none of Hazelcast's
 * warnings a user would have to learn to ignore (about JDK internals, and its unused CP subsystem).
 * The nodes run with the JVM options the jar's manifest gives {@code java -jar} (pom.xml).
 */
@ProcessTier
class NodeStartLogTest {
  @TempDir
  Path dir;

  @Test
  void aClusterNodeSaysWhatItIsAndWarnsOfNothing() throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start(new ProcessCluster.Options(2).conf(new JsonObject())
        .jvmOptions(manifestAccess().toArray(String[]::new)).startTimeout(Duration.ofSeconds(120)), dir)) {
      for (int node = 0; node < 2; node++) {
        String log = cluster.currentLog(node);
        List<String> alarming = log.lines()
            .filter(line -> line.contains(" WARNING com.hazelcast") || line.contains(" SEVERE com.hazelcast")
                || line.contains("--add-opens") || line.contains("CP Subsystem"))
            .toList();
        assertEquals(List.of(), alarming, "node " + node + "'s log at start (the cluster's Hazelcast members "
            + cluster.hazelcastMembers() + "):\n" + log);
        String ready = log.lines().filter(line -> line.contains(" ready on port ")).findFirst().orElse("");
        assertTrue(ready.startsWith("quorumkv: node " + cluster.url(node) + " ready on port "), log);
        assertTrue(ready.contains("data in " + dir.resolve("node-" + node)), ready);
        assertTrue(ready.contains("conf " + dir.resolve("node-" + node + ".json")), ready);
        assertTrue(ready.contains("2 nodes in topology epoch "), ready);
        assertTrue(ready.contains("Hazelcast on port "), ready);
      }
    }
  }

  /** The manifest's Add-Opens and Add-Exports entries as command-line options. */
  private static List<String> manifestAccess() {
    List<String> options = new ArrayList<>();
    for (String opened : property("quorumkv.addOpens").split(" ")) {
      options.add("--add-opens=" + opened + "=ALL-UNNAMED");
    }
    for (String exported : property("quorumkv.addExports").split(" ")) {
      options.add("--add-exports=" + exported + "=ALL-UNNAMED");
    }
    return options;
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new AssertionError(name + " is not set: run the test through Maven (pom.xml sets it, as the jar's manifest)");
    }
    return value;
  }
}
