package io.quorumkv.backup;

import io.quorumkv.support.Http;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A cluster backup reaches the other nodes through the internal endpoint, behind the cluster
 * secret: the caller's token stays on the node it was given to, so nodes that know different
 * admin tokens all take the backup.
 */
class ClusterBackupTest {
  private static final List<String> TOKENS = List.of("token-of-node-0", "token-of-node-1");

  @Test
  void aClusterBackupNeedsTheCallersTokenOnlyOnTheNodeAsked(@TempDir Path dataRoot) {
    try (TestCluster cluster = TestCluster.start(2, dataRoot, new JsonObject().put("clusterSecret", "backup-secret"),
        node -> new JsonObject().put("adminToken", TOKENS.get(node)))) {
      // Node 1 does not know node 0's token: a request carrying it would be refused there.
      assertEquals(401, admin(cluster.http(1), "GET", "/admin/backup", TOKENS.get(0)).statusCode());

      HttpResponse<byte[]> taken = admin(cluster.http(0), "POST", "/admin/backup?scope=cluster&name=everywhere",
          TOKENS.get(0));
      assertEquals(201, taken.statusCode(), Http.text(taken));
      JsonArray answers = new JsonObject(Http.text(taken)).getJsonArray("nodes");
      assertEquals(2, answers.size(), answers.encodePrettily());
      Map<String, JsonObject> byNode = new HashMap<>();
      answers.forEach(answer -> byNode.put(((JsonObject) answer).getString("node"), (JsonObject) answer));
      for (int node = 0; node < 2; node++) {
        // Listed in the topology's order, which is the urls', not the test's numbering.
        JsonObject answer = byNode.get(cluster.url(node).toString());
        assertNotNull(answer, "no answer for node " + node + ": " + answers.encodePrettily());
        assertEquals("everywhere", answer.getJsonObject("backup").getString("name"), answers.encodePrettily());
        HttpResponse<byte[]> listed = admin(cluster.http(node), "GET", "/admin/backup", TOKENS.get(node));
        assertEquals("everywhere", new JsonArray(Http.text(listed)).getJsonObject(0).getString("name"),
            "node " + node + "'s backups");
      }
    }
  }

  private static HttpResponse<byte[]> admin(Http http, String method, String path, String token) {
    return http.send(method, path, HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer " + token);
  }
}
