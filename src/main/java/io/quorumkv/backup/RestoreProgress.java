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
 * {@link RestoreOptions#fingerprint}) resumes after the last key every record up to which the
 * cluster confirmed. Written after each step forward, atomically; deleted when the restore ends well.
 *
 * @param after  the last key done, null before the first
 * @param counts the counts so far
 */
record RestoreProgress(byte[] after, RestoreCounts counts) {

  /** What an earlier run of this restore kept, or a fresh start when there is none (or it was another restore's). */
  static RestoreProgress load(Path file, String fingerprint) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new RestoreProgress(null, new RestoreCounts());
    } catch (IOException e) {
      throw new BackupException("cannot read the progress file " + file + ": " + e.getMessage());
    }
    try {
      JsonObject json = new JsonObject(text);
      if (!fingerprint.equals(json.getString("fingerprint"))) {
        return new RestoreProgress(null, new RestoreCounts());
      }
      String after = json.getString("after");
      return new RestoreProgress(after == null ? null : Base64.getDecoder().decode(after),
          RestoreCounts.fromJson(json.getJsonObject("counts")));
    } catch (DecodeException | ClassCastException | IllegalArgumentException | NullPointerException e) {
      throw new BackupException("the progress file " + file + " is damaged; delete it or pass --from-scratch");
    }
  }

  static void save(Path file, String fingerprint, byte[] after, RestoreCounts counts) {
    JsonObject json = new JsonObject().put("fingerprint", fingerprint)
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
