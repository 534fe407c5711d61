package io.quorumkv.web;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.support.TestCertificates;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A TLS node builds its SSL contexts once, off the event loops, and its server's connections find
 * them built. Built lazily, as Vert.x does by itself, the server and every loop's clients to other
 * nodes built one on their event loop at their first connection, and a node with many loops held
 * them for seconds at start.
 */
class NodeSslContextsTest {
  @TempDir
  Path dir;

  @Test
  void noEventLoopBuildsAnSslContext() throws Exception {
    TestCertificates certs = TestCertificates.make(dir.resolve("certs"));
    NodeConfig config = TestNode.config(dir.resolve("data"), new JsonObject().put("url", "https://127.0.0.1:0")
        .put("eventLoops", 4).put("tls", certs.tlsConf("127.0.0.1")));
    try (TestNode node = TestNode.start(config, InstantSource.system())) {
      URI base = URI.create("https://127.0.0.1:" + node.port());
      // Each client its own connection, so that they land on several loops.
      List<HttpClient> clients = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        HttpClient client = certs.clientWith(null, null);
        clients.add(client);
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(base.resolve("/v0/entities?start=a&scope=cluster"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
      }
      NodeSslContexts contexts = NodeSslContexts.of(config.tls());
      assertEquals(0, contexts.builtOnEventLoops(), "SSL contexts built on an event loop");
      assertTrue(contexts.handedOut() >= 1, "the node's server took the loaded context");
    }
  }
}
