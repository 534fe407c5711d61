package io.quorumkv.cli;

import io.quorumkv.backup.BackupFiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * One file of a backup copied from a node to {@code target}, checked against the size and SHA-256
 * the node listed. It is written as {@code target.part} and moved into place once it checks out; a
 * {@code .part} left by a run cut short is continued where it stopped ({@code Range: bytes=N-}),
 * and fetched whole once more if the result does not check out. A body that stalls is given up
 * ({@link StallGuard}).
 */
final class FileFetch {
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);
  private static final int BUFFER_BYTES = 1 << 16;

  private final NodeClient client;

  FileFetch(NodeClient client) {
    this.client = client;
  }

  /** What a file of the listing is on disk now. */
  static boolean matches(Path file, long bytes, String sha256) {
    try {
      return Files.isRegularFile(file) && Files.size(file) == bytes && BackupFiles.sha256(file).equals(sha256);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Fetches the file into {@code target}; {@code progress} hears of every block written. True when
   * it continued a {@code .part} left before (the node sent only the rest).
   */
  boolean fetch(URI node, String pathAndQuery, Path target, long bytes, String sha256, LongConsumer progress) {
    Path part = target.resolveSibling(target.getFileName() + ".part");
    try {
      Files.createDirectories(target.getParent());
      long have = Files.exists(part) ? Files.size(part) : 0;
      if (have > bytes) {
        Files.delete(part);
        have = 0;
      }
      boolean resumed = copy(node, pathAndQuery, part, have, bytes, progress);
      if (!matches(part, bytes, sha256) && resumed) {
        // What the earlier run left was damaged, or of another backup under this name: start over.
        Files.delete(part);
        copy(node, pathAndQuery, part, 0, bytes, progress);
      }
      if (!matches(part, bytes, sha256)) {
        throw new AdminFailure(target + " from " + node + " does not match the SHA-256 the node listed; run again");
      }
      Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return resumed;
    } catch (IOException e) {
      throw new AdminFailure("cannot write " + target + ": " + e.getMessage());
    }
  }

  /**
   * Appends what the node sends from {@code from} on to {@code part}, or writes it anew when the node
   * sends the whole file; true when it appended.
   */
  private boolean copy(URI node, String pathAndQuery, Path part, long from, long bytes, LongConsumer progress)
      throws IOException {
    if (from == bytes) {
      if (bytes == 0) {
        Files.write(part, new byte[0]);
      }
      return from > 0;
    }
    List<String> range = from > 0 ? List.of("Range", "bytes=" + from + "-") : List.of();
    try (NodeClient.Download download = client.downloadFrom(node, pathAndQuery, ANSWER_TIMEOUT, range, 200, 206);
         StallGuard guard = new StallGuard(download)) {
      boolean append = download.status() == 206;
      long written = append ? from : 0;
      try (InputStream in = guard.body();
           OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
               append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
        byte[] buffer = new byte[BUFFER_BYTES];
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          out.write(buffer, 0, read);
          written += read;
          progress.accept(read);
        }
      } catch (IOException | UncheckedIOException e) {
        throw new AdminFailure(node + " broke off sending " + part.getFileName() + " (" + guard.why() + ": "
            + e.getMessage() + "); run again to continue");
      }
      if (written != bytes) {
        throw new AdminFailure(node + " sent " + written + " of " + bytes + " bytes of " + part.getFileName() + " ("
            + guard.why() + "); run again to continue");
      }
      return append;
    }
  }
}
