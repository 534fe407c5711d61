package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.util.List;

/**
 * {@code admin join}: a node joins by being started with a conf naming the cluster
 * (docs/operations.md#adding-a-node); this looks at the node of the (first) {@code --url} and says
 * where its join stands, or what is wrong: it does not answer, it is not joining, it is a cluster of
 * its own. With {@code --wait}, follows the join through that node until it is {@code normal} in a
 * stable topology, giving a node still starting {@link ChangeFollower#SILENCE} to answer.
 */
final class JoinSubcommand implements Subcommand {
  @Override
  public String name() {
    return "join";
  }

  @Override
  public String synopsis() {
    return "join " + WaitOptions.USAGE + "    where the join of the started node of the (first) --url stands";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    WaitOptions wait = WaitOptions.parse(arguments);
    Subcommands.noArguments(wait.rest());
    URI node = options.urls().get(0);
    JsonObject cluster = wait.follow() ? firstAnswer(client, node) : client.sendTo(node, "GET", "/v0/cluster",
        NodeClient.DEFAULT_TIMEOUT, 200).json();
    check(cluster, node);
    if (wait.follow() && !done(cluster, node)) {
      cluster = new ChangeFollower(client, output, wait.timeout()).follow(List.of(node), node.toString(), look -> {
        check(look, node);
        return done(look, node);
      });
    } else {
      output.line(ChangeProgress.line(cluster, node.toString()));
    }
    output.line(done(cluster, node) ? node + " is a normal member of the cluster (epoch " + ChangeProgress.epoch(cluster) + ")"
        : node + " is joining");
    output.json(cluster);
  }

  private static boolean done(JsonObject cluster, URI node) {
    return ChangeProgress.stable(cluster) && ChangeProgress.stateOf(cluster, node.toString()).equals("normal");
  }

  /** Fails with the line saying what is wrong when the node's own view shows no join of it. */
  private static void check(JsonObject cluster, URI node) {
    String state = ChangeProgress.stateOf(cluster, node.toString());
    if (state.equals(ChangeProgress.ABSENT) || state.equals("leaving")) {
      throw new AdminFailure(node + " is not joining: it is " + (state.equals("leaving") ? "leaving" : "not in")
          + " the topology it sees (epoch " + ChangeProgress.epoch(cluster) + ", "
          + cluster.getJsonObject("topology", new JsonObject()).getString("stage") + ")"
          + (ChangeProgress.stable(cluster) && state.equals(ChangeProgress.ABSENT)
          ? "; its join was aborted, or it was removed" : ""));
    }
    if (Subcommands.objects(cluster.getJsonArray("nodes")).size() == 1) {
      throw new AdminFailure(node + " is a cluster of its own: its conf names no other node"
          + " (docs/operations.md#adding-a-node)");
    }
  }

  /** The node's view once it answers: a node just started takes a while. */
  private static JsonObject firstAnswer(NodeClient client, URI node) {
    long start = System.nanoTime();
    while (true) {
      NodeClient.Answer answer = client.getIfAnswering(node, "/v0/cluster", NodeClient.CONNECT_TIMEOUT);
      if (answer != null) {
        return answer.json();
      }
      if (System.nanoTime() - start >= ChangeFollower.SILENCE.toNanos()) {
        throw new AdminFailure(node + " has not answered for " + ChangeFollower.SILENCE.toSeconds() + " s: is it"
            + " started? A node that cannot join exits with status 1 and says why in its log");
      }
      ChangeFollower.pause();
    }
  }
}
