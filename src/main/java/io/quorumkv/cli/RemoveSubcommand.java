package io.quorumkv.cli;

import io.quorumkv.admin.MembershipAdmin;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code admin remove NODE_URL}: a node down for good leaves the topology ({@code POST
 * /admin/cluster/remove?url=} on the first url that answers); the others copy its keys from the
 * remaining replicas. With {@code --wait}, follows the change until the node is out of a stable
 * topology.
 */
final class RemoveSubcommand implements Subcommand {
  @Override
  public String name() {
    return "remove";
  }

  @Override
  public String synopsis() {
    return "remove NODE_URL " + WaitOptions.USAGE + "   a node down for good leaves the topology";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    WaitOptions wait = WaitOptions.parse(arguments);
    if (wait.rest().size() != 1) {
      throw new IllegalArgumentException(wait.rest().isEmpty() ? "which node? give its url, as in its conf"
          : "one node at a time, got " + String.join(" ", wait.rest()));
    }
    URI removed = AdminOptions.nodeUrl(wait.rest().get(0));
    NodeClient.Answer answer = client.send("POST", MembershipAdmin.REMOVE + "?url="
        + URLEncoder.encode(removed.toString(), StandardCharsets.UTF_8), NodeClient.DEFAULT_TIMEOUT, 202);
    JsonObject topology = answer.json();
    output.line(removed + " is being removed: " + Subcommands.topologyLine(topology));
    JsonObject document = new JsonObject().put("accepted", topology);
    if (wait.follow()) {
      List<URI> watchers = new ArrayList<>(List.of(answer.node()));
      options.urls().forEach(url -> Subcommands.addNew(watchers, url));
      Subcommands.membersBut(topology, removed).forEach(member -> Subcommands.addNew(watchers, member));
      JsonObject last = new ChangeFollower(client, output, wait.timeout()).follow(watchers, removed.toString(),
          cluster -> ChangeProgress.stable(cluster)
              && ChangeProgress.stateOf(cluster, removed.toString()).equals(ChangeProgress.ABSENT));
      output.line(removed + " is out of the cluster (epoch " + ChangeProgress.epoch(last) + ")");
      document.put("cluster", last);
    }
    output.json(document);
  }
}
