package io.quorumkv.peer;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * A cluster-wide command: run here for this node, and sent through an internal endpoint to every
 * other node at once, over one {@link PeerClient} closed once every node answered.
 */
public final class EveryNode {
  private EveryNode() {
  }

  /**
   * Each node's answer, in the order of {@code nodes}: {@code here} for this node, {@code there}
   * with a client timed by {@code endpoint}'s row for each other.
   */
  public static <T> Map<NodeUrl, Future<T>> ask(Vertx vertx, NodeConfig config, InternalEndpoint endpoint,
                                               Collection<NodeUrl> nodes, Supplier<Future<T>> here,
                                               BiFunction<PeerClient, NodeUrl, Future<T>> there) {
    PeerClient client = new PeerClient(vertx, config, endpoint.timeout(), new PoolOptions());
    Map<NodeUrl, Future<T>> answers = new LinkedHashMap<>();
    for (NodeUrl node : nodes) {
      answers.put(node, node.equals(config.url()) ? here.get() : there.apply(client, node));
    }
    Future.join(new ArrayList<>(answers.values())).onComplete(all -> client.close());
    return answers;
  }
}
