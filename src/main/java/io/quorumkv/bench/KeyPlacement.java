package io.quorumkv.bench;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.web.ClientFailures;
import io.quorumkv.web.ClientTls;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The keys of a run chosen by where they live: the cluster's nodes come from the target's
 * {@code GET /v0/cluster}, and a key's first replica is computed as the nodes compute it.
 */
final class KeyPlacement {
  private KeyPlacement() {
  }

  /** The key numbers {@code i} (key {@code k<i>}) that match the placement; null for {@link LoadOptions.Placement#ANY}. */
  static int[] keyIndexes(LoadOptions options) throws IOException, InterruptedException {
    if (options.placement() == LoadOptions.Placement.ANY) {
      return null;
    }
    JsonObject cluster = fetchCluster(options.url(), options.authorization(), options.tls());
    NodeUrl target = NodeUrl.parse("self", cluster.getString("self"));
    List<NodeUrl> nodes = new ArrayList<>();
    JsonArray listed = cluster.getJsonArray("nodes");
    for (int i = 0; i < listed.size(); i++) {
      nodes.add(NodeUrl.parse("nodes", listed.getJsonObject(i).getString("url")));
    }
    Rendezvous rendezvous = new Rendezvous(nodes);
    boolean owned = options.placement() == LoadOptions.Placement.OWNER;
    int[] matching = IntStream.range(0, options.keys())
        .filter(i -> rendezvous.replicasFor(("k" + i).getBytes(StandardCharsets.UTF_8), 1).get(0).equals(target) == owned)
        .toArray();
    if (matching.length == 0) {
      throw new IllegalArgumentException("no key of the key space has the placement " + options.placement());
    }
    return matching;
  }

  private static JsonObject fetchCluster(URI url, String authorization, ClientTls tls)
      throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(tls.sslContext())
        .build();
    HttpRequest.Builder request = HttpRequest.newBuilder(url.resolve("/v0/cluster")).timeout(Duration.ofSeconds(10));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpResponse<String> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IOException(ClientFailures.describe(url, e), e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("GET /v0/cluster answered " + ClientFailures.answer(response.statusCode(), response.body()));
    }
    return new JsonObject(response.body());
  }
}
