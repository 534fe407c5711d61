package io.quorumkv.cluster;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.support.HomeSets;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The replication factor is the cluster's, fixed by its first topology: a node whose conf names
 * another logs one warning naming both and follows the cluster's, as the conf's node list is
 * followed once the cluster has a topology of its own.
 */
@ProcessTier
class ReplicationFactorAgreementTest {
  private static final Duration JOIN = Duration.ofSeconds(60);
  private static final String WARNING = "the conf's replicationFactor 3 differs from the cluster's 2";

  @RegisterExtension
  final ClusterExtension clusters = new ClusterExtension();

  @Test
  void aJoinerWhoseConfNamesAnotherFactorWarnsAndFollowsTheCluster() throws IOException {
    ProcessCluster cluster = clusters.start(2, new JsonObject().put("replicationFactor", 2));
    int joiner = cluster.addNode(new JsonObject().put("replicationFactor", 3));
    Await.until("the join is stable everywhere", JOIN, cluster::stableEverywhere, cluster::topologyViews);

    for (int node : cluster.members()) {
      JsonObject topology = cluster.clusterInfo(node).getJsonObject("topology");
      assertEquals(2, topology.getInteger("replicationFactor"), () -> "node " + node + ": " + topology.encode());
      assertEquals(2, topology.getInteger("defaultFrom"), () -> "node " + node + ": " + topology.encode());
    }
    assertEquals(1, occurrences(cluster.log(joiner), WARNING), () -> "the joiner's log: " + cluster.log(joiner));
    assertEquals(0, occurrences(cluster.log(0) + cluster.log(1), WARNING), "the first nodes' confs agree");

    HomeSets homes = new HomeSets(cluster.memberUrls());
    for (int i = 0; i < 12; i++) {
      String key = "k" + i;
      HttpResponse<byte[]> put = cluster.http(joiner).put("/v0/entity?id=" + key, "v" + i);
      assertEquals(201, put.statusCode(), () -> key + ": " + Http.text(put));
      Set<String> home = homes.of(key, 2);
      Await.until(key + " on " + home, Duration.ofSeconds(10), () -> holders(cluster, key).equals(home),
          () -> "held by " + holders(cluster, key));
    }
  }

  private static Set<String> holders(ProcessCluster cluster, String key) {
    Set<String> holders = new TreeSet<>();
    for (int node : cluster.members()) {
      if (cluster.copy(node, key) != null) {
        holders.add(cluster.url(node));
      }
    }
    return holders;
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }
}
