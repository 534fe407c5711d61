package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that restarts must not issue versions ahead of the other nodes' clocks: a client that
 * writes a key through the restarted node and then, later, overwrites it through another node
 * must read its second write. (Found by the crash test's design: a restarted node's clock used
 * to start at its persisted lease bound, up to 10 s in the future, so for those seconds every
 * write it coordinated beat later writes coordinated elsewhere.)
 */
class RestartClockTest {
  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = clusters.startInJvm(3, new JsonObject());
  }

  @Test
  void anOverwriteThroughAnotherNodeRightAfterARestartWins() {
    cluster.stop(0);
    cluster.restart(0);
    // A key whose only replica at from=1 is the restarted node, so the other coordinator's clock
    // never sees the first write's version before it issues its own.
    String key = keyOwnedBy(cluster.url(0));
    long first = versionOf(cluster.http(0).put("/v0/entity?id=" + key + "&ack=1&from=1", "first"));
    long second = versionOf(cluster.http(1).put("/v0/entity?id=" + key + "&ack=1&from=1", "second"));
    assertTrue(second > first, "the later write got version " + second + ", below the earlier write's " + first
        + " (" + ((first >>> 16) - System.currentTimeMillis()) + " ms ahead of the wall clock)");
    assertEquals("second", Http.text(cluster.http(2).get("/v0/entity?id=" + key + "&ack=1&from=1")));
  }

  private static String keyOwnedBy(NodeUrl node) {
    Rendezvous placement = new Rendezvous(List.of(cluster.url(0), cluster.url(1), cluster.url(2)));
    for (int i = 0; ; i++) {
      String key = "restart-" + i;
      if (placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 1).get(0).equals(node)) {
        return key;
      }
    }
  }

  private static long versionOf(HttpResponse<byte[]> put) {
    assertEquals(201, put.statusCode(), Http.text(put));
    return Long.parseLong(put.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
  }
}
