package io.quorumkv.backup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;

/**
 * The files a copy of a complete backup needs, by their paths under its directory: each checkpoint
 * file its manifest lists ({@code rocksdb/NAME}), then {@code manifest.json}, with sizes and SHA-256.
 * The digests are computed once and kept beside the backup in {@value #CHECKSUMS} ({@code sha256sum}'s
 * format); a backup's files never change. Only these paths are ever served. Blocking.
 */
public final class BackupFiles {
  public static final String CHECKSUMS = "SHA256SUMS";
  private static final System.Logger LOG = System.getLogger(BackupFiles.class.getName());
  private static final int READ_BUFFER_BYTES = 1 << 20;

  /** One file: its path under the backup's directory, its size and its SHA-256 in hex. */
  public record BackupFile(String path, long bytes, String sha256) {
  }

  private BackupFiles() {
  }

  /** The backup's files with their digests, computed and kept in {@value #CHECKSUMS} the first time. */
  public static List<BackupFile> of(NodeBackup backup) {
    List<String> paths = paths(backup.manifest());
    Map<String, String> digests = cached(backup.dir());
    boolean complete = digests.keySet().containsAll(paths);
    if (!complete) {
      digests = new HashMap<>();
      for (String path : paths) {
        digests.put(path, sha256(backup.dir().resolve(path)));
      }
      keep(backup.dir(), paths, digests);
    }
    List<BackupFile> files = new ArrayList<>();
    for (String path : paths) {
      files.add(new BackupFile(path, size(backup.dir().resolve(path)), digests.get(path)));
    }
    return files;
  }

  /** The file at {@code path} of the backup; NoSuchElementException unless it is one of its {@link #of files}. */
  public static Path file(NodeBackup backup, String path) {
    if (path == null || !paths(backup.manifest()).contains(path)) {
      throw new NoSuchElementException("no file " + path + " in backup " + backup.manifest().name());
    }
    return backup.dir().resolve(path);
  }

  /** The paths, the manifest last: a copy that holds it is complete, as a backup is. */
  private static List<String> paths(BackupManifest manifest) {
    List<String> paths = new ArrayList<>();
    manifest.files().forEach(file -> paths.add(NodeBackup.CHECKPOINT_DIR + "/" + file.name()));
    paths.add(BackupManifest.FILE_NAME);
    return paths;
  }

  private static Map<String, String> cached(Path dir) {
    Map<String, String> digests = new HashMap<>();
    try {
      for (String line : Files.readAllLines(dir.resolve(CHECKSUMS), StandardCharsets.UTF_8)) {
        int gap = line.indexOf("  ");
        if (gap == 64) {
          digests.put(line.substring(gap + 2), line.substring(0, gap));
        }
      }
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot read " + dir.resolve(CHECKSUMS) + ", computing again: "
          + e.getMessage());
      return Map.of();
    }
    return digests;
  }

  /** Writes the digests for the next request; one that cannot be written is computed again then. */
  private static void keep(Path dir, List<String> paths, Map<String, String> digests) {
    StringBuilder text = new StringBuilder();
    paths.forEach(path -> text.append(digests.get(path)).append("  ").append(path).append('\n'));
    Path written = dir.resolve(CHECKSUMS + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.writeString(written, text, StandardCharsets.UTF_8);
      Files.move(written, dir.resolve(CHECKSUMS), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot keep the checksums of " + dir + ": " + e.getMessage());
      try {
        Files.deleteIfExists(written);
      } catch (IOException ignored) {
        // nothing more to do: the file is in the backup's directory, deleted with it
      }
    }
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (IOException e) {
      throw new BackupException("cannot read " + path + ": " + e.getMessage());
    }
  }

  /** The SHA-256 of the file, in lower-case hex. */
  public static String sha256(Path path) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buffer = new byte[READ_BUFFER_BYTES];
    try (InputStream in = Files.newInputStream(path)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        digest.update(buffer, 0, read);
      }
    } catch (IOException e) {
      throw new BackupException("cannot read " + path + ": " + e.getMessage());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
