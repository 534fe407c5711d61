package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nodes open their batch streams to each other when they start and when a peer joins, before any
 * request needs one, so that no request waits for a connection and its upgrade (on a loaded
 * machine that took over a second). Read from each node's {@code quorumkv_batch_streams} gauge.
 * A stopping node closes the streams its peers keep open to it instead of waiting out its
 * shutdown timeout for them.
 */
@ProcessTier
class ConnectAheadTest {
  private static final Duration OPENED = Duration.ofSeconds(30);
  private static final long SHUTDOWN_TIMEOUT_MS = 30_000;
  private static final Pattern STREAMS = Pattern.compile("^quorumkv_batch_streams\\{peer=\"([^\"]+)\"[^}]*} (\\S+)$",
      Pattern.MULTILINE);

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();
  private ProcessCluster cluster;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void streamsOpenBeforeAnyRequestCloseWhenAPeerStopsAndReopenWhenItRejoins() throws Exception {
    cluster = clusters.start(3, new JsonObject().put("shutdownTimeoutMs", SHUTDOWN_TIMEOUT_MS));
    cluster.awaitAllSeeAll();
    awaitStreamsBetweenAll("the nodes start, before any request");

    int restarted = 1;
    long stopStart = System.nanoTime();
    cluster.stop(restarted);
    long stopMs = (System.nanoTime() - stopStart) / 1_000_000;
    assertTrue(stopMs < SHUTDOWN_TIMEOUT_MS / 2, "a node with its peers' idle streams open took " + stopMs
        + " ms to stop (shutdownTimeoutMs " + SHUTDOWN_TIMEOUT_MS + ")");
    for (int node : new int[] {0, 2}) {
      Await.until("node " + node + " closes its streams to the stopped node", OPENED,
          () -> streams(node, cluster.url(restarted)) == 0);
    }
    cluster.restart(restarted);
    awaitStreamsBetweenAll("node " + restarted + " rejoins, before any request");

    for (int node = 0; node < cluster.size(); node++) {
      HttpResponse<byte[]> put = cluster.http(node).put("/v0/entity?id=k" + node + "&ack=3&from=3", "v");
      assertEquals(201, put.statusCode(), "a write at 3/3 through node " + node + ": " + Http.text(put));
    }
  }

  private void awaitStreamsBetweenAll(String when) {
    for (int node = 0; node < cluster.size(); node++) {
      for (int peer = 0; peer < cluster.size(); peer++) {
        if (peer != node) {
          int from = node;
          String to = cluster.url(peer);
          Await.until("node " + from + " has a batch stream open to " + to + " once " + when, OPENED,
              () -> streams(from, to) >= 1);
        }
      }
    }
  }

  /** Open batch streams from {@code node} to {@code peer}, 0 while the node has never had one. */
  private int streams(int node, String peer) {
    Matcher line = STREAMS.matcher(Http.text(cluster.http(node).get("/metrics")));
    while (line.find()) {
      if (line.group(1).equals(peer)) {
        return (int) Double.parseDouble(line.group(2));
      }
    }
    return 0;
  }
}
