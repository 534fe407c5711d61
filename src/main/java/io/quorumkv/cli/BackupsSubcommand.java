package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code admin backups [list] [--node]}, {@code admin backups delete NAME [--cluster]},
 * {@code admin backups fetch NAME --to DIR [--node]}: the backups every node holds (or the node
 * asked, with {@code --node}), deleting one, and gathering one's parts here ({@link BackupFetch}).
 * A node that fails is a row of the table, and exit status 1.
 */
final class BackupsSubcommand implements Subcommand {
  @Override
  public String name() {
    return "backups";
  }

  @Override
  public String synopsis() {
    return "backups [list] [--node] | delete NAME [--cluster] | fetch NAME --to DIR [--node]\n"
        + "                          every node's backups; delete one; copy one's node parts to DIR for restore --from";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    SubcommandArguments parsed = SubcommandArguments.parse(arguments, Set.of("--node", "--cluster"), Set.of("--to"));
    List<String> words = parsed.words("ACTION", "NAME");
    String action = words.get(0) == null ? "list" : words.get(0);
    switch (action) {
      case "list" -> {
        parsed.words("list");
        list(ClusterNodes.chosen(client, parsed.has("--node")), client, output);
      }
      case "delete" -> delete(parsed.word(1, "the backup's NAME"), ClusterNodes.chosen(client, !parsed.has("--cluster")),
          client, output);
      case "fetch" -> {
        String name = parsed.word(1, "the backup's NAME");
        Path to = Path.of(parsed.required("--to"));
        List<BackupFetch.PartCopy> copies = new BackupFetch(client, output)
            .fetch(name, ClusterNodes.chosen(client, parsed.has("--node")), to);
        copyTable(copies, output);
        output.json(copyDocument(to, copies));
        failIfAny(copies);
      }
      default -> throw new IllegalArgumentException("unknown action '" + action + "': list, delete or fetch");
    }
  }

  private static void list(List<URI> nodes, NodeClient client, Output output) {
    ClusterNodes.listEach(nodes, client, output, "/admin/backup", "backups", "backups",
        List.of("NODE", "NAME", "CREATED", "RECORDS", "SIZE"),
        backup -> List.of(backup.getString("name", "-"), backup.getString("createdAt", "-"),
            String.valueOf(backup.getValue("records")), BackupFetch.size(backup.getLong("diskBytes", 0L))));
  }

  private static void delete(String name, List<URI> nodes, NodeClient client, Output output) {
    JsonArray document = new JsonArray();
    List<List<String>> rows = new ArrayList<>();
    String failure = null;
    for (URI node : nodes) {
      try {
        client.sendTo(node, "DELETE", "/admin/backup?name=" + ClusterNodes.encode(name), NodeClient.DEFAULT_TIMEOUT, 204);
        document.add(ClusterNodes.entry(node).put("deleted", name));
        rows.add(List.of(node.toString(), "deleted " + name));
      } catch (AdminFailure e) {
        failure = failure == null ? e.getMessage() : failure;
        document.add(ClusterNodes.entry(node).put("error", e.getMessage()));
        rows.add(List.of(node.toString(), "ERROR " + e.getMessage()));
      }
    }
    output.table(List.of("NODE", "RESULT"), rows);
    output.json(document);
    if (failure != null) {
      throw new AdminFailure(nodes.size() == 1 ? failure : "could not delete " + name + " on every node: " + failure);
    }
  }

  static void copyTable(List<BackupFetch.PartCopy> copies, Output output) {
    output.table(List.of("NODE", "DIRECTORY", "FILES", "FETCHED", "SIZE", "ERROR"), copies.stream()
        .map(copy -> List.of(copy.node().toString(), String.valueOf(copy.dir()), String.valueOf(copy.files()),
            String.valueOf(copy.fetched()), BackupFetch.size(copy.bytes()), copy.error() == null ? "-" : copy.error()))
        .toList());
  }

  static JsonObject copyDocument(Path to, List<BackupFetch.PartCopy> copies) {
    return new JsonObject().put("dir", to.toString())
        .put("parts", new JsonArray(copies.stream().map(BackupFetch.PartCopy::toJson).toList()));
  }

  static void failIfAny(List<BackupFetch.PartCopy> copies) {
    List<BackupFetch.PartCopy> failed = copies.stream().filter(copy -> copy.error() != null).toList();
    if (!failed.isEmpty()) {
      throw new AdminFailure(failed.size() == 1 && copies.size() == 1 ? failed.get(0).error()
          : "could not copy " + failed.size() + " of " + copies.size() + " node parts (" + failed.get(0).node() + ": "
          + failed.get(0).error() + "); run again to continue");
    }
  }
}
