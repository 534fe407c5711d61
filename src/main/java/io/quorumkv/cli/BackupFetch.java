package io.quorumkv.cli;

import io.quorumkv.backup.BackupFiles;
import io.quorumkv.backup.BackupManifest;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Gathers a backup's node parts into one directory on this machine, {@code DIR/HOST-PORT/} per
 * node, each as the node keeps it (its {@code rocksdb/} files, then {@code manifest.json}), so
 * that {@code restore --from DIR} takes the whole and {@code --from DIR/HOST-PORT} one part. Each
 * file is checked against the SHA-256 its node lists; a rerun checks what is there, skips what
 * matches and fetches the rest ({@link FileFetch}). A part's manifest is written last and taken
 * away while anything else of the part is fetched again, so a part holding one is complete.
 */
final class BackupFetch {
  /** The first listing of a large backup computes its digests on the node. */
  static final Duration LISTING_TIMEOUT = Duration.ofMinutes(30);
  private static final long PROGRESS_EVERY_NANOS = 2_000_000_000L;

  private final NodeClient client;
  private final Output output;

  BackupFetch(NodeClient client, Output output) {
    this.client = client;
    this.output = output;
  }

  /** What one node's part came to: its directory, its files and bytes, how many were fetched (or why none could be). */
  record PartCopy(URI node, Path dir, int files, long bytes, int fetched, int resumed, int replaced, String error) {
    JsonObject toJson() {
      JsonObject json = ClusterNodes.entry(node).put("dir", dir == null ? null : dir.toString());
      return error != null ? json.put("error", error) : json.put("files", files).put("bytes", bytes)
          .put("fetched", fetched).put("resumed", resumed).put("replaced", replaced)
          .put("skipped", files - fetched);
    }
  }

  /** Copies each node's part of the backup {@code name} under {@code target}; a node that fails does not stop the others. */
  List<PartCopy> fetch(String name, List<URI> nodes, Path target) {
    List<PartCopy> copies = new ArrayList<>();
    FileFetch files = new FileFetch(client);
    for (URI node : nodes) {
      Path dir = target.resolve(partName(node));
      try {
        copies.add(fetchPart(files, name, node, dir));
      } catch (AdminFailure e) {
        output.progress("fetch: " + node + ": " + e.getMessage());
        copies.add(new PartCopy(node, dir, 0, 0, 0, 0, 0, e.getMessage()));
      }
    }
    return copies;
  }

  /** The directory of a node's part: its host and port, such as {@code 10.0.0.7-8080}. */
  static String partName(URI node) {
    return (node.getHost() + "-" + node.getPort()).replaceAll("[^A-Za-z0-9.-]", "_");
  }

  private PartCopy fetchPart(FileFetch files, String name, URI node, Path dir) {
    String query = "?name=" + ClusterNodes.encode(name);
    JsonObject listing = client.sendTo(node, "GET", "/admin/backup/files" + query, LISTING_TIMEOUT, 200).json();
    List<JsonObject> listed = Subcommands.objects(listing.getJsonArray("files"));
    long total = listing.getLong("bytes", 0L);
    List<JsonObject> missing = new ArrayList<>();
    for (JsonObject file : listed) {
      if (!FileFetch.matches(local(dir, file), file.getLong("bytes"), file.getString("sha256"))) {
        missing.add(file);
      }
    }
    Path manifest = dir.resolve(BackupManifest.FILE_NAME);
    if (!missing.isEmpty() && Files.exists(manifest)) {
      delete(manifest);
      if (missing.stream().noneMatch(file -> file.getString("path").equals(BackupManifest.FILE_NAME))) {
        missing.add(listed.stream().filter(file -> file.getString("path").equals(BackupManifest.FILE_NAME))
            .findFirst().orElseThrow(() -> new AdminFailure(node + " listed no " + BackupManifest.FILE_NAME)));
      }
    }
    Progress progress = new Progress(node, listed.size(), total);
    listed.stream().filter(file -> !missing.contains(file)).forEach(file -> progress.fileDone(file.getLong("bytes")));
    int resumed = 0;
    int replaced = 0;
    for (JsonObject file : missing) {
      Path local = local(dir, file);
      if (Files.exists(local)) {
        replaced++;
        delete(local);
      }
      if (files.fetch(node, "/admin/backup/file" + query + "&path=" + ClusterNodes.encode(file.getString("path")),
          local, file.getLong("bytes"), file.getString("sha256"), progress::bytes)) {
        resumed++;
      }
      progress.fileDone(0);
    }
    writeChecksums(dir, listed);
    output.progress(String.format(Locale.ROOT, "fetch: %s: done, %d files (%d fetched, %d already here), %s in %s",
        node, listed.size(), missing.size(), listed.size() - missing.size(), size(total), dir));
    return new PartCopy(node, dir, listed.size(), total, missing.size(), resumed, replaced, null);
  }

  /** Where a listed file goes: under the part's directory, never outside it, whatever the node lists. */
  private static Path local(Path dir, JsonObject file) {
    String path = file.getString("path");
    Path local = path == null ? null : dir.resolve(path).normalize();
    if (local == null || !local.startsWith(dir.normalize()) || local.equals(dir.normalize())) {
      throw new AdminFailure("the node listed a file outside the backup: " + path);
    }
    return local;
  }

  /** The part's digests in {@code sha256sum}'s format, for {@code sha256sum -c} later. */
  private static void writeChecksums(Path dir, List<JsonObject> listed) {
    StringBuilder text = new StringBuilder();
    listed.forEach(file -> text.append(file.getString("sha256")).append("  ").append(file.getString("path")).append('\n'));
    Path written = dir.resolve(BackupFiles.CHECKSUMS + ".tmp");
    try {
      Files.writeString(written, text, StandardCharsets.UTF_8);
      Files.move(written, dir.resolve(BackupFiles.CHECKSUMS), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new AdminFailure("cannot write " + written + ": " + e.getMessage());
    }
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new AdminFailure("cannot delete " + file + ": " + e.getMessage());
    }
  }

  static String size(long bytes) {
    return bytes < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0)
        : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }

  /** Files and bytes done of a part, a line on stderr every 2 s and at the last file. */
  private final class Progress {
    private final URI node;
    private final int files;
    private final long total;
    private int filesDone;
    private long bytesDone;
    private long lastLineNanos = System.nanoTime();

    Progress(URI node, int files, long total) {
      this.node = node;
      this.files = files;
      this.total = total;
    }

    void bytes(long more) {
      bytesDone += more;
      if (System.nanoTime() - lastLineNanos > PROGRESS_EVERY_NANOS) {
        line();
      }
    }

    void fileDone(long bytes) {
      filesDone++;
      bytesDone += bytes;
      if (filesDone == files || System.nanoTime() - lastLineNanos > PROGRESS_EVERY_NANOS) {
        line();
      }
    }

    private void line() {
      lastLineNanos = System.nanoTime();
      output.progress(String.format(Locale.ROOT, "fetch: %s: %d of %d files, %s of %s", node, filesDone, files,
          size(Math.min(bytesDone, total)), size(total)));
    }
  }
}
