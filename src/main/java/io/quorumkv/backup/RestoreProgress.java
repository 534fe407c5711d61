package io.quorumkv.backup;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;

/**
 * How far a restore got, kept in a small JSON file so that a rerun of the same restore (same
 * {@link RestoreOptions#fingerprint}) into the same cluster (same id) resumes after the last key
 * every record up to which the cluster confirmed. Written after each step forward, atomically;
 * deleted when the restore ends well.
 *
 * @param after  the last key done, null before the first
 * @param counts the counts so far
 */
record RestoreProgress(byte[] after, RestoreCounts counts) {

  /**
   * What an earlier run of this restore kept, or a fresh start when there is none (or it was another
   * restore's); a {@link BackupException} when it was this restore's into another cluster, which
   * holds none of what the file says is done.
   */
  static RestoreProgress load(ProgressFile progress) {
    Path file = progress.path();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new RestoreProgress(null, new RestoreCounts());
    } catch (IOException e) {
      throw new BackupException("cannot read the progress file " + file + ": " + e.getMessage());
    }
    JsonObject json;
    try {
      json = new JsonObject(text);
      if (!progress.fingerprint().equals(json.getString("fingerprint"))) {
        return new RestoreProgress(null, new RestoreCounts());
      }
    } catch (DecodeException | ClassCastException e) {
      throw damaged(file);
    }
    Object cluster = json.getValue("cluster");
    if (!progress.clusterId().equals(cluster)) {
      throw new BackupException("the progress file " + file + " is for cluster "
          + (cluster == null ? "unknown (an older quorumkv wrote it)" : cluster) + ", the target is cluster "
          + progress.clusterId() + ": delete it or pass --from-scratch");
    }
    try {
      String after = json.getString("after");
      return new RestoreProgress(after == null ? null : Base64.getDecoder().decode(after),
          RestoreCounts.fromJson(json.getJsonObject("counts")));
    } catch (ClassCastException | IllegalArgumentException | NullPointerException e) {
      throw damaged(file);
    }
  }

  private static BackupException damaged(Path file) {
    return new BackupException("the progress file " + file + " is damaged; delete it or pass --from-scratch");
  }

  static void save(ProgressFile progress, byte[] after, RestoreCounts counts) {
    Path file = progress.path();
    JsonObject json = new JsonObject().put("fingerprint", progress.fingerprint())
        .put("cluster", progress.clusterId())
        .put("after", after == null ? null : Base64.getEncoder().encodeToString(after))
        .put("counts", counts.toJson());
    Path written = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.writeString(written, json.encode(), StandardCharsets.UTF_8);
      Files.move(written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new BackupException("cannot write the progress file " + file + ": " + e.getMessage());
    }
  }

  static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a stale progress file only makes the next identical restore resume at its end
    }
  }
}
