package io.quorumkv.cli;

import io.quorumkv.admin.MembershipAdmin;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code admin leave}: the node of the first {@code --url} leaves the cluster ({@code POST
 * /admin/cluster/leave} on it, never on another url). With {@code --wait}, follows the change
 * through the other nodes (the other urls first) until the node is out of a stable topology, then
 * waits for it to stop answering.
 */
final class LeaveSubcommand implements Subcommand {
  @Override
  public String name() {
    return "leave";
  }

  @Override
  public String synopsis() {
    return "leave " + WaitOptions.USAGE + "   the node of the (first) --url hands its records over and leaves";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    WaitOptions wait = WaitOptions.parse(arguments);
    Subcommands.noArguments(wait.rest());
    URI node = options.urls().get(0);
    JsonObject topology = client.sendTo(node, "POST", MembershipAdmin.LEAVE, NodeClient.DEFAULT_TIMEOUT, 202).json();
    output.line(node + " leaves: " + Subcommands.topologyLine(topology));
    JsonObject document = new JsonObject().put("accepted", topology);
    if (wait.follow()) {
      List<URI> watchers = new ArrayList<>(options.urls().subList(1, options.urls().size()));
      Subcommands.membersBut(topology, node).forEach(member -> Subcommands.addNew(watchers, member));
      JsonObject last = new ChangeFollower(client, output, wait.timeout()).follow(watchers, node.toString(), cluster -> {
        String state = ChangeProgress.stateOf(cluster, node.toString());
        if (ChangeProgress.stable(cluster) && state.equals("normal")) {
          throw new AdminFailure("the leave of " + node + " was aborted (epoch " + ChangeProgress.epoch(cluster)
              + "): it is a member again");
        }
        return ChangeProgress.stable(cluster) && state.equals(ChangeProgress.ABSENT);
      });
      output.line(node + " has left the cluster (epoch " + ChangeProgress.epoch(last) + "); waiting for it to stop");
      awaitSilence(client, node);
      output.line(node + " stopped; its data directory is kept");
      document.put("cluster", last);
    }
    output.json(document);
  }

  /** Waits until the node that left stops answering: it exits by itself once out of the topology. */
  private static void awaitSilence(NodeClient client, URI node) {
    long start = System.nanoTime();
    while (client.getIfAnswering(node, "/v0/status", Duration.ofSeconds(2)) != null) {
      if (Duration.ofNanos(System.nanoTime() - start).compareTo(ChangeFollower.SILENCE) >= 0) {
        throw new AdminFailure(node + " left but still answers " + ChangeFollower.SILENCE.toSeconds()
            + " s later: stop its process yourself");
      }
      ChangeFollower.pause();
    }
  }
}
