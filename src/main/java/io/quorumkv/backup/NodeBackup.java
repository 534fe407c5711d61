package io.quorumkv.backup;

import io.quorumkv.storage.RecordsSnapshot;
import io.quorumkv.storage.StorageException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * One node's backup on disk: a directory holding {@code manifest.json} and the RocksDB checkpoint
 * under {@code rocksdb/}. Blocking.
 */
public record NodeBackup(Path dir, BackupManifest manifest) {
  static final String CHECKPOINT_DIR = "rocksdb";
  private static final int READ_BUFFER_BYTES = 1 << 20;

  /** The backup in {@code dir}, its manifest read but its files not checked; a {@link BackupException} if it has none. */
  public static NodeBackup at(Path dir) {
    Path manifest = dir.resolve(BackupManifest.FILE_NAME);
    String text;
    try {
      text = Files.readString(manifest, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new BackupException("not a quorumkv backup: " + dir + " has no " + BackupManifest.FILE_NAME);
    } catch (IOException e) {
      throw new BackupException("cannot read " + manifest + ": " + e.getMessage());
    }
    return new NodeBackup(dir, BackupManifest.parse(text, manifest.toString()));
  }

  /**
   * The node backups {@code path} holds: itself when it is one, else each subdirectory that is one
   * (such as the copies of one cluster backup gathered from every node). A {@link BackupException}
   * when there is none, or a subdirectory looks like a backup but is not a readable one.
   */
  public static List<NodeBackup> under(Path path) {
    if (!Files.isDirectory(path)) {
      throw new BackupException("no backup at " + path + ": not a directory");
    }
    if (Files.exists(path.resolve(BackupManifest.FILE_NAME))) {
      return List.of(at(path));
    }
    List<NodeBackup> found = new ArrayList<>();
    try (Stream<Path> children = Files.list(path)) {
      for (Path child : children.sorted().toList()) {
        if (Files.exists(child.resolve(BackupManifest.FILE_NAME))) {
          found.add(at(child));
        }
      }
    } catch (IOException e) {
      throw new BackupException("cannot list " + path + ": " + e.getMessage());
    }
    if (found.isEmpty()) {
      throw new BackupException("not a quorumkv backup: " + path + " holds no " + BackupManifest.FILE_NAME
          + ", nor does any directory in it");
    }
    return found;
  }

  Path checkpoint() {
    return dir.resolve(CHECKPOINT_DIR);
  }

  /** Checks every file the manifest lists against its size and CRC32C; a {@link BackupException} naming the first that differs. */
  public void verify() {
    for (BackupManifest.BackupFile file : manifest.files()) {
      Path path = checkpoint().resolve(file.name());
      long bytes;
      try {
        bytes = Files.size(path);
      } catch (IOException e) {
        throw new BackupException("corrupt backup " + dir + ": " + file.name() + " is missing");
      }
      if (bytes != file.bytes()) {
        throw new BackupException("corrupt backup " + dir + ": " + file.name() + " has " + bytes
            + " bytes, the manifest says " + file.bytes());
      }
      if (crc32c(path) != file.crc32c()) {
        throw new BackupException("corrupt backup " + dir + ": " + file.name() + " does not match its checksum");
      }
    }
  }

  /** The checkpoint's records, opened read-only. */
  public RecordsSnapshot open() {
    try {
      return RecordsSnapshot.open(checkpoint());
    } catch (StorageException e) {
      throw new BackupException("corrupt backup " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Every regular file of the checkpoint with its size and CRC32C, by name. */
  static List<BackupManifest.BackupFile> describeFiles(Path checkpoint) throws IOException {
    List<BackupManifest.BackupFile> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(checkpoint)) {
      for (Path path : entries.sorted().toList()) {
        if (Files.isRegularFile(path)) {
          files.add(new BackupManifest.BackupFile(path.getFileName().toString(), Files.size(path), crc32c(path)));
        }
      }
    }
    return files;
  }

  private static long crc32c(Path path) {
    CRC32C crc = new CRC32C();
    byte[] buffer = new byte[READ_BUFFER_BYTES];
    try (InputStream in = Files.newInputStream(path)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        crc.update(buffer, 0, read);
      }
    } catch (IOException e) {
      throw new BackupException("cannot read " + path + ": " + e.getMessage());
    }
    return crc.getValue();
  }
}
