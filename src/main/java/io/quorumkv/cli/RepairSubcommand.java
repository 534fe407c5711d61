package io.quorumkv.cli;

import io.quorumkv.admin.RepairAdmin;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code admin repair}: an anti-entropy round now, waited for. Each node of the topology in turn
 * ({@code --one-node}: only the first url that answers) runs {@code POST /admin/repair}, an
 * exchange with every other node; the table shows each pair's outcome. Exits 1 when a node could not
 * be reached or an exchange failed; at once, with the node's answer, when a node refuses (a topology
 * change holds anti-entropy back, a token without the admin role).
 */
final class RepairSubcommand implements Subcommand {
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  @Override
  public String name() {
    return "repair";
  }

  @Override
  public String synopsis() {
    return "repair [--one-node] [--timeout SECONDS]   an anti-entropy round now, from every node, and its outcome";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    boolean oneNode = false;
    Duration timeout = DEFAULT_TIMEOUT;
    for (int i = 0; i < arguments.size(); i++) {
      switch (arguments.get(i)) {
        case "--one-node" -> oneNode = true;
        case "--timeout" -> {
          if (i + 1 == arguments.size()) {
            throw new IllegalArgumentException("--timeout needs a number of seconds");
          }
          timeout = WaitOptions.seconds(arguments.get(++i));
        }
        default -> throw new IllegalArgumentException("unexpected argument: " + arguments.get(i));
      }
    }
    JsonArray rounds = new JsonArray();
    List<String> failures = new ArrayList<>();
    if (oneNode) {
      rounds.add(client.send("POST", RepairAdmin.PATH, timeout, 200).json());
    } else {
      NodeClient.Answer view = client.send("GET", "/v0/cluster", NodeClient.DEFAULT_TIMEOUT, 200);
      for (JsonObject node : Subcommands.objects(view.json().getJsonArray("nodes"))) {
        URI url = URI.create(node.getString("url"));
        NodeClient.Answer round = client.sendToIfReachable(url, "POST", RepairAdmin.PATH, timeout, 200);
        if (round == null) {
          failures.add(url + " cannot be reached");
          rounds.add(new JsonObject().put("node", url.toString()).put("error", "cannot be reached"));
        } else {
          rounds.add(round.json());
        }
      }
    }
    List<List<String>> rows = new ArrayList<>();
    for (JsonObject round : Subcommands.objects(rounds)) {
      for (JsonObject peer : Subcommands.objects(round.getJsonArray("peers"))) {
        rows.add(List.of(round.getString("node"), peer.getString("peer"), peer.getString("outcome"),
            String.valueOf(peer.getValue("keysDiffering", "-")), String.valueOf(peer.getValue("sent", "-")),
            String.valueOf(peer.getValue("received", "-")), String.valueOf(peer.getValue("tookMs")),
            peer.getString("error") == null ? "" : peer.getString("error")));
        if (!"repaired".equals(peer.getString("outcome"))) {
          failures.add(round.getString("node") + " with " + peer.getString("peer") + ": " + peer.getString("error"));
        }
      }
    }
    output.json(new JsonObject().put("rounds", rounds));
    output.table(List.of("NODE", "PEER", "OUTCOME", "KEYS DIFFERING", "SENT", "RECEIVED", "MS", "ERROR"), rows);
    if (!failures.isEmpty()) {
      throw new AdminFailure("repair incomplete: " + failures.get(0)
          + (failures.size() > 1 ? " (and " + (failures.size() - 1) + " more)" : ""));
    }
    output.line("repaired: every exchange completed");
  }
}
