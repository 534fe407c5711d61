package io.quorumkv.cli;

import io.quorumkv.admin.MembershipAdmin;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code admin abort}: the change in progress goes back to the members from before it ({@code POST
 * /admin/cluster/abort} on the first url that answers): the way out of a change that waits for a
 * node down for good. With {@code --wait}, follows it until the topology is stable, then names the
 * down nodes to remove.
 */
final class AbortSubcommand implements Subcommand {
  @Override
  public String name() {
    return "abort";
  }

  @Override
  public String synopsis() {
    return "abort " + WaitOptions.USAGE + "   the change in progress goes back to the members from before it";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    WaitOptions wait = WaitOptions.parse(arguments);
    Subcommands.noArguments(wait.rest());
    List<String> down = ChangeProgress.downNodes(client.getJson("/v0/cluster"));
    NodeClient.Answer answer = client.send("POST", MembershipAdmin.ABORT, NodeClient.DEFAULT_TIMEOUT, 202);
    JsonObject topology = answer.json();
    output.line("the change is aborted: " + Subcommands.topologyLine(topology));
    JsonObject document = new JsonObject().put("accepted", topology);
    if (wait.follow()) {
      List<URI> watchers = new ArrayList<>(List.of(answer.node()));
      options.urls().forEach(url -> Subcommands.addNew(watchers, url));
      JsonObject last = new ChangeFollower(client, output, wait.timeout())
          .follow(watchers, answer.node().toString(), ChangeProgress::stable);
      output.line("back to the members from before the change (epoch " + ChangeProgress.epoch(last) + ")");
      document.put("cluster", last);
    }
    down.forEach(node -> output.line("if " + node + " is gone for good: java -jar quorumkv.jar admin remove " + node));
    output.json(document.put("downNodes", new JsonArray(down)));
  }
}
