package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code admin jfr start|stop|list|flame|fetch}: JFR recording sessions (docs/profiling.md) on the
 * node asked, or every node with {@code --cluster}; a flame graph page or a {@code .jfr} file
 * downloaded from the node asked.
 */
final class JfrSubcommand implements Subcommand {
  /** A flame graph of a large recording takes minutes to convert (admin.AdminApi lets it run ten). */
  private static final Duration EXPORT_TIMEOUT = Duration.ofMinutes(10);

  @Override
  public String name() {
    return "jfr";
  }

  @Override
  public String synopsis() {
    return "jfr start NAME [--duration MS] [--settings profile|default] [--cluster] | stop NAME [--cluster] | list [--node]\n"
        + "    | flame NAME [--type cpu|alloc|lock|wall] --out PAGE.html | fetch NAME --out FILE.jfr\n"
        + "                          JFR recordings: start, stop, list every node's; a flame graph page or the .jfr file";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    SubcommandArguments parsed = SubcommandArguments.parse(arguments, Set.of("--cluster", "--node"),
        Set.of("--duration", "--settings", "--type", "--out"));
    List<String> words = parsed.words("ACTION", "NAME");
    if (words.get(0) == null) {
      throw new IllegalArgumentException("an action is required: start, stop, list, flame or fetch");
    }
    switch (words.get(0)) {
      case "start" -> command(client, output, "/admin/jfr", "start", parsed.word(1, "the recording's NAME"), parsed, 201);
      case "stop" -> command(client, output, "/admin/jfr/stop", "stop", parsed.word(1, "the recording's NAME"), parsed, 200);
      case "list" -> {
        parsed.words("list");
        list(ClusterNodes.chosen(client, parsed.has("--node")), client, output);
      }
      case "flame" -> save(client, output, "/admin/jfr/flame?name=" + ClusterNodes.encode(parsed.word(1, "the recording's NAME"))
          + (parsed.value("--type") == null ? "" : "&type=" + ClusterNodes.encode(parsed.value("--type"))),
          Path.of(parsed.required("--out")));
      case "fetch" -> save(client, output, "/admin/jfr/file?name=" + ClusterNodes.encode(parsed.word(1, "the recording's NAME")),
          Path.of(parsed.required("--out")));
      default -> throw new IllegalArgumentException("unknown action '" + words.get(0)
          + "': start, stop, list, flame or fetch");
    }
  }

  private static void command(NodeClient client, Output output, String path, String action, String name,
                              SubcommandArguments parsed, int status) {
    boolean cluster = parsed.has("--cluster");
    StringBuilder query = new StringBuilder("?name=").append(ClusterNodes.encode(name));
    if (action.equals("start")) {
      for (String option : List.of("--duration", "--settings")) {
        if (parsed.value(option) != null) {
          query.append('&').append(option.substring(2)).append('=').append(ClusterNodes.encode(parsed.value(option)));
        }
      }
    }
    if (cluster) {
      query.append("&scope=cluster");
    }
    NodeClient.Answer answer = client.send("POST", path + query, NodeClient.DEFAULT_TIMEOUT, cluster ? 202 : status);
    JsonObject recording = answer.json();
    output.json(recording);
    if (cluster) {
      output.line(action + " of recording " + name + " sent to every node by " + answer.node()
          + " (admin jfr list shows where it runs)");
    } else {
      output.line("recording " + name + " on " + answer.node() + ": " + recording.getString("state", "-")
          + ", settings " + recording.getString("settings", "-") + ", " + recording.getValue("durationMs") + " ms");
    }
  }

  private static void list(List<URI> nodes, NodeClient client, Output output) {
    ClusterNodes.listEach(nodes, client, output, "/admin/jfr", "recordings", "recordings",
        List.of("NODE", "NAME", "STATE", "SETTINGS", "STARTED", "DURATION MS"),
        recording -> List.of(recording.getString("name", "-"), recording.getString("state", "-"),
            recording.getString("settings", "-"), String.valueOf(recording.getValue("started", "-")),
            String.valueOf(recording.getValue("durationMs"))));
  }

  /** Downloads the answer into {@code out}, written whole or not at all. */
  private static void save(NodeClient client, Output output, String pathAndQuery, Path out) {
    Path part = out.resolveSibling(out.getFileName() + ".part");
    long bytes;
    URI node;
    try (NodeClient.Download download = client.download(pathAndQuery, EXPORT_TIMEOUT, 200);
         StallGuard guard = new StallGuard(download);
         InputStream body = guard.body()) {
      node = download.node();
      if (out.getParent() != null) {
        Files.createDirectories(out.getParent());
      }
      bytes = Files.copy(body, part, StandardCopyOption.REPLACE_EXISTING);
      long expected = download.headers().firstValueAsLong("content-length").orElse(bytes);
      if (bytes != expected) {
        throw new IOException(node + " sent " + bytes + " of " + expected + " bytes (" + guard.why() + ")");
      }
      Files.move(part, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      deleteQuietly(part);
      throw new AdminFailure("cannot save " + out + ": " + e.getMessage());
    }
    output.json(new JsonObject().put("node", node.toString()).put("file", out.toString()).put("bytes", bytes));
    output.line("wrote " + out + " (" + BackupFetch.size(bytes) + ") from " + node);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a .part beside the file asked for: the next run replaces it
    }
  }
}
