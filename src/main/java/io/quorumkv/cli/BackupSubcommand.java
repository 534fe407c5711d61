package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code admin backup [--cluster] [--name N] [--copy-to DIR]}: a backup of the node asked, or of
 * every node, each node's result in a table; with {@code --copy-to}, its parts then gathered here
 * ({@link BackupFetch}). Exit 1 when any node failed.
 */
final class BackupSubcommand implements Subcommand {
  /** As long as a node waits for another's backup (peer.InternalEndpoint's BACKUP_TAKE). */
  private static final Duration BACKUP_TIMEOUT = Duration.ofMinutes(30);

  @Override
  public String name() {
    return "backup";
  }

  @Override
  public String synopsis() {
    return "backup [--cluster] [--name N] [--copy-to DIR]\n"
        + "                          take a backup (of every node with --cluster); with --copy-to, copy its parts to DIR";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    SubcommandArguments parsed = SubcommandArguments.parse(arguments, Set.of("--cluster"), Set.of("--name", "--copy-to"));
    parsed.words();
    boolean cluster = parsed.has("--cluster");
    String name = parsed.value("--name");
    Path copyTo = parsed.value("--copy-to") == null ? null : Path.of(parsed.value("--copy-to"));
    String query = (cluster ? "?scope=cluster" : "?scope=node") + (name == null ? "" : "&name=" + ClusterNodes.encode(name));
    NodeClient.Answer answer = client.send("POST", "/admin/backup" + query, BACKUP_TIMEOUT, cluster ? new int[] {201, 502}
        : new int[] {201});
    JsonObject taken = answer.json();
    List<JsonObject> results = cluster ? Subcommands.objects(taken.getJsonArray("nodes"))
        : List.of(ClusterNodes.entry(answer.node()).put("backup", taken));
    String backupName = taken.getString("name");
    JsonObject document = new JsonObject().put("name", backupName).put("nodes", new JsonArray(new ArrayList<>(results)));
    output.table(List.of("NODE", "NAME", "RECORDS", "BYTES", "ERROR"), results.stream().map(result -> {
      JsonObject backup = result.getJsonObject("backup");
      return backup == null ? List.of(result.getString("node", "-"), backupName, "-", "-", result.getString("error", "-"))
          : List.of(result.getString("node", "-"), backup.getString("name", "-"), String.valueOf(backup.getValue("records")),
          String.valueOf(backup.getValue("diskBytes")), "-");
    }).toList());
    long failed = results.stream().filter(result -> result.containsKey("error")).count();
    if (copyTo != null && failed == 0) {
      List<URI> nodes = cluster ? results.stream().map(result -> AdminOptions.nodeUrl(result.getString("node"))).toList()
          : List.of(answer.node());
      List<BackupFetch.PartCopy> copies = new BackupFetch(client, output).fetch(backupName, nodes, copyTo);
      document.put("copy", BackupsSubcommand.copyDocument(copyTo, copies));
      output.line("");
      BackupsSubcommand.copyTable(copies, output);
      output.json(document);
      BackupsSubcommand.failIfAny(copies);
      return;
    }
    output.json(document);
    if (failed > 0) {
      throw new AdminFailure("backup " + backupName + " failed on " + failed + " of " + results.size() + " nodes"
          + (copyTo == null ? "" : "; nothing copied"));
    }
  }
}
