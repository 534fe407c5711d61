package io.quorumkv.backup;

import io.quorumkv.config.BackupConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.RecordsSnapshot;
import io.quorumkv.storage.RocksDatabase;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * This node's backups, one directory each under the conf's {@code backup.dir}: taking one (a
 * RocksDB checkpoint, then its manifest), listing, deleting, and keeping at most {@code backup.retain}.
 * A backup is known by its directory's name, which its manifest must repeat. A backup in progress
 * holds an {@code in-progress} file until its manifest is written; one cut short by a crash is
 * deleted by the next backup, or by {@link #delete}. Blocking, one call at a time.
 */
public final class NodeBackups {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final String IN_PROGRESS = "in-progress";
  private static final System.Logger LOG = System.getLogger(NodeBackups.class.getName());
  private static final DateTimeFormatter DEFAULT_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

  private final BackupConfig config;
  private final NodeUrl node;
  private final RocksDatabase database;
  private final Supplier<JsonObject> topology;
  private final LongSupplier clock;
  private final InstantSource wallClock;

  /**
   * @param topology the topology in force, as JSON
   * @param clock    the clock's current value, read once the checkpoint is taken
   */
  public NodeBackups(BackupConfig config, NodeUrl node, RocksDatabase database, Supplier<JsonObject> topology,
                     LongSupplier clock, InstantSource wallClock) {
    this.config = config;
    this.node = node;
    this.database = database;
    this.topology = topology;
    this.clock = clock;
    this.wallClock = wallClock;
  }

  /** The name, if it is one a backup may have; else an IllegalArgumentException saying what one looks like. */
  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a backup name is 1 to 64 letters, digits, '.', '_' or '-', starting with"
          + " a letter or digit; got '" + name + "'");
    }
    return name;
  }

  /** The name of a backup taken now when none is given: its UTC time. */
  public String defaultName() {
    return DEFAULT_NAME.format(wallClock.instant());
  }

  /**
   * Takes a backup: IllegalStateException when one of that name exists; a {@link BackupException}
   * when it fails, leaving nothing behind.
   */
  public synchronized BackupManifest take(String name) {
    checkName(name);
    Path dir = config.dir().resolve(name);
    try {
      deleteCutShort(); // one of this name, too: it is taken again
    } catch (BackupException e) {
      LOG.log(System.Logger.Level.WARNING, "a backup cut short could not be deleted: " + e.getMessage());
    }
    try {
      Files.createDirectories(config.dir());
      Files.createDirectory(dir);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new IllegalStateException("a backup named " + name + " exists");
    } catch (IOException e) {
      throw new BackupException("cannot create " + dir + ": " + e.getMessage());
    }
    BackupManifest manifest;
    try {
      Files.writeString(dir.resolve(IN_PROGRESS), "");
      manifest = snapshot(name, dir);
      Path written = dir.resolve(BackupManifest.FILE_NAME + ".tmp");
      Files.writeString(written, manifest.toJson().encodePrettily(), StandardCharsets.UTF_8);
      Files.move(written, dir.resolve(BackupManifest.FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
      Files.delete(dir.resolve(IN_PROGRESS));
    } catch (IOException | RuntimeException e) {
      BackupException failure = e instanceof BackupException backup ? backup
          : new BackupException("backup " + name + " failed: " + e.getMessage(), e);
      try {
        deleteTree(dir);
      } catch (BackupException leftBehind) {
        failure.addSuppressed(leftBehind);
      }
      throw failure;
    }
    try {
      retain();
    } catch (BackupException e) {
      LOG.log(System.Logger.Level.WARNING, "backup " + name + " is complete, but older ones could not be deleted: "
          + e.getMessage());
    }
    return manifest;
  }

  private BackupManifest snapshot(String name, Path dir) throws IOException {
    long createdAt = wallClock.millis();
    long startedNanos = System.nanoTime();
    Path checkpoint = dir.resolve(NodeBackup.CHECKPOINT_DIR);
    database.checkpoint(checkpoint);
    long highWater = clock.getAsLong();
    JsonObject topologyNow = topology.get();
    long records = 0;
    long live = 0;
    long tombstones = 0;
    long dataBytes = 0;
    long maxVersion = 0;
    try (RecordsSnapshot snapshot = RecordsSnapshot.open(checkpoint);
         RecordsSnapshot.Cursor cursor = snapshot.cursor(null, null)) {
      while (cursor.hasNext()) {
        RangeEntry entry = cursor.next();
        records++;
        dataBytes += entry.key().length + entry.value().length;
        maxVersion = Math.max(maxVersion, entry.record().version());
        if (entry.record().tombstone()) {
          tombstones++;
        } else if (entry.record().isLive(createdAt)) {
          live++;
        }
      }
    }
    List<BackupManifest.BackupFile> files = NodeBackup.describeFiles(checkpoint);
    long diskBytes = files.stream().mapToLong(BackupManifest.BackupFile::bytes).sum();
    long tookMs = (System.nanoTime() - startedNanos) / 1_000_000;
    return new BackupManifest(BackupManifest.FORMAT_VERSION, name, node.toString(), createdAt, topologyNow, highWater,
        maxVersion, records, live, tombstones, dataBytes, diskBytes, tookMs, files);
  }

  /**
   * The complete backup of that name: its directory holds its manifest and no in-progress mark.
   * NoSuchElementException when there is none. Not synchronized: reading a backup does not wait for
   * one being taken.
   */
  public NodeBackup complete(String name) {
    Path dir = config.dir().resolve(checkName(name));
    if (!Files.exists(dir.resolve(BackupManifest.FILE_NAME)) || Files.exists(dir.resolve(IN_PROGRESS))) {
      throw new NoSuchElementException("no backup named " + name);
    }
    NodeBackup backup = NodeBackup.at(dir);
    if (!backup.manifest().name().equals(name)) {
      throw new NoSuchElementException("no backup named " + name);
    }
    return backup;
  }

  /** The complete backups, oldest first: each directory whose readable manifest names it. */
  public synchronized List<BackupManifest> list() {
    List<BackupManifest> manifests = new ArrayList<>();
    for (Path dir : backupDirectories()) {
      if (Files.exists(dir.resolve(BackupManifest.FILE_NAME))) {
        try {
          BackupManifest manifest = NodeBackup.at(dir).manifest();
          if (manifest.name().equals(dir.getFileName().toString())) {
            manifests.add(manifest);
          }
        } catch (BackupException unreadable) {
          // not one of ours, or damaged: not listed, and so never deleted by retention
        }
      }
    }
    manifests.sort(Comparator.comparingLong(BackupManifest::createdAtMillis).thenComparing(BackupManifest::name));
    return manifests;
  }

  private List<Path> backupDirectories() {
    if (!Files.isDirectory(config.dir())) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(config.dir())) {
      return dirs.filter(Files::isDirectory).filter(dir -> NAME.matcher(dir.getFileName().toString()).matches())
          .toList();
    } catch (IOException e) {
      throw new BackupException("cannot list " + config.dir() + ": " + e.getMessage());
    }
  }

  /** Deletes the backups a crash cut short: those still marked in progress (none runs while this does). */
  private void deleteCutShort() {
    for (Path dir : backupDirectories()) {
      if (Files.exists(dir.resolve(IN_PROGRESS))) {
        LOG.log(System.Logger.Level.INFO, "deleting " + dir + ", a backup cut short");
        deleteTree(dir);
      }
    }
  }

  /**
   * Deletes the backup of that name (complete, damaged, or cut short): the directory of that name
   * holding a manifest or an in-progress mark. NoSuchElementException when there is none.
   */
  public synchronized void delete(String name) {
    Path dir = config.dir().resolve(checkName(name));
    if (!Files.exists(dir.resolve(BackupManifest.FILE_NAME)) && !Files.exists(dir.resolve(IN_PROGRESS))) {
      throw new NoSuchElementException("no backup named " + name);
    }
    deleteTree(dir);
  }

  /** Deletes the oldest complete backups beyond {@code retain}. */
  private void retain() {
    if (config.retain() == 0) {
      return;
    }
    List<BackupManifest> all = list();
    for (int i = 0; i < all.size() - config.retain(); i++) {
      deleteTree(config.dir().resolve(all.get(i).name()));
    }
  }

  /** Deletes a backup directory this class made. */
  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new BackupException("cannot delete " + dir + ": " + e.getMessage());
    }
  }
}
