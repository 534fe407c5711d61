package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.support.FakeClock;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The clock cases black-box, as a user met them: real node processes, node 2's wall clock moved
 * 2 s by libfaketime (Debian {@code faketime}) from its start. Of two writes one after the other,
 * through the skewed node and a correct one in either order, the later wins through every node,
 * for PUT and DELETE, at 1/1 (a key whose one replica is node 1) and at 2/3.
 */
@ProcessTier
class FakeTimeSkewTest {
  private static final int SKEWED = 2;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "node 2 off by {0} ms")
  @ValueSource(longs = {-2_000, 2_000})
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void theLaterWriteWinsWhicheverNodeIsSkewed(long skewMillis) throws Exception {
    Assumptions.assumeTrue(FakeClock.library().isPresent(), "libfaketime is not installed (apt-get install faketime)");
    // A JVM under libfaketime beside two others may start slowly on a busy machine.
    ProcessCluster.Options options = new ProcessCluster.Options(3).clockOffset(SKEWED, skewMillis)
        .startTimeout(Duration.ofSeconds(150));
    try (ProcessCluster cluster = ProcessCluster.start(options, dir)) {
      // Behind: the skewed node writes second. Ahead: it writes first, a correct node second.
      int first = skewMillis < 0 ? 0 : SKEWED;
      int second = skewMillis < 0 ? SKEWED : 0;
      Rendezvous placement = new Rendezvous(cluster.urls().stream().map(url -> NodeUrl.parse("url", url)).toList());
      for (String quorum : List.of("1/1", "2/3")) {
        String putKey = key(placement, cluster, quorum, "put");
        put(cluster, first, putKey, "first", quorum);
        put(cluster, second, putKey, "second", quorum);
        assertEveryNodeReads(cluster, putKey, "second", quorum);

        String deleteKey = key(placement, cluster, quorum, "delete");
        put(cluster, first, deleteKey, "first", quorum);
        HttpResponse<byte[]> delete = cluster.http(second).delete(entity(deleteKey, quorum));
        assertEquals(202, delete.statusCode(), text(delete));
        assertEveryNodeReads(cluster, deleteKey, null, quorum);
      }
    }
  }

  /** At 1/1 a key whose one replica is node 1 (neither writer holds it); at 2/3 any key. */
  private static String key(Rendezvous placement, ProcessCluster cluster, String quorum, String prefix) {
    for (int i = 0; ; i++) {
      String key = prefix + "-" + quorum.replace('/', '-') + "-" + i;
      NodeUrl owner = placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), 1).get(0);
      if (!quorum.equals("1/1") || owner.toString().equals(cluster.url(1))) {
        return key;
      }
    }
  }

  private static void put(ProcessCluster cluster, int node, String key, String value, String quorum) {
    HttpResponse<byte[]> put = cluster.http(node).put(entity(key, quorum), value);
    assertEquals(201, put.statusCode(), "PUT through node " + node + ": " + text(put));
  }

  private static void assertEveryNodeReads(ProcessCluster cluster, String key, String expected, String quorum) {
    for (int node = 0; node < cluster.size(); node++) {
      HttpResponse<byte[]> read = cluster.http(node).get(entity(key, quorum));
      if (expected == null) {
        assertEquals(404, read.statusCode(), key + " through node " + node + " read " + text(read));
      } else {
        assertEquals(200, read.statusCode(), key + " through node " + node);
        assertEquals(expected, text(read), key + " through node " + node);
      }
    }
  }

  private static String entity(String key, String quorum) {
    String[] parts = quorum.split("/");
    return "/v0/entity?id=" + Http.encode(key) + "&ack=" + parts[0] + "&from=" + parts[1];
  }
}
