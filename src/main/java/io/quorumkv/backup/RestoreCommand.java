package io.quorumkv.backup;

import io.quorumkv.config.CommandArguments;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.RecordsSnapshot;
import io.vertx.core.json.JsonObject;

import io.quorumkv.storage.StorageException;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code java -jar quorumkv.jar restore}: checks that the url is a quorumkv node the token may restore
 * into, and every backup named, then streams their records
 * (each key once, its freshest copy among them) through one node into the cluster, which places each
 * at the replicas its key has now. Shows progress every few seconds, keeps it in a file for a rerun
 * to resume, and ends with the counts. Exit status 0 when every record went through, 1 when the
 * restore stopped or could not start, 2 for a bad command line.
 */
public final class RestoreCommand {
  private static final long PROGRESS_EVERY_MS = 2_000;

  private final RestoreOptions options;
  private final PrintStream out;

  RestoreCommand(RestoreOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static int runFromCommandLine(List<String> args) {
    if (CommandArguments.asksForHelp(args)) {
      System.out.println(RestoreOptions.USAGE);
      return 0;
    }
    RestoreOptions options;
    try {
      options = RestoreOptions.parse(args, System.getenv(RestoreOptions.TOKEN_VARIABLE));
    } catch (IllegalArgumentException e) {
      System.err.println("quorumkv restore: " + e.getMessage());
      System.err.println(RestoreOptions.USAGE);
      return 2;
    }
    try {
      return new RestoreCommand(options, System.err).run();
    } catch (BackupException e) {
      System.err.println("quorumkv restore: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  int run() throws InterruptedException {
    // The node first: a wrong url, token or CA is said before any backup is opened.
    RestoreClient client = new RestoreClient(options.url(), options.token(), options.tls());
    JsonObject cluster = client.describe();
    List<NodeBackup> backups = checkedBackups();
    JsonObject topology = cluster.getJsonObject("topology");
    String clusterId = cluster.getString("clusterId");
    if (clusterId == null) {
      throw new BackupException(options.url() + " names no cluster id: it runs an older quorumkv than this tool");
    }
    out.println("restore: into cluster " + clusterId + " through " + cluster.getString("node") + " (topology epoch "
        + topology.getLong("epoch") + ", " + topology.getJsonObject("members").size() + " nodes)"
        + (options.rollback() ? ", rolling back " + range() + " at fresh versions" : ", keeping each record's version"
        + (options.start() == null && options.end() == null ? "" : ", keys " + range())));
    warnIfOlderThanPurgeGrace(backups, cluster.getLong("purgeGraceMs"));
    String fingerprint = options.fingerprint(backups.stream().map(NodeBackup::manifest).toList());
    ProgressFile progressFile = new ProgressFile(
        options.progress() != null ? options.progress() : defaultProgressFile(fingerprint), fingerprint, clusterId);
    RestoreProgress progress = options.fromScratch() ? new RestoreProgress(null, new RestoreCounts())
        : RestoreProgress.load(progressFile);
    byte[] from = options.start();
    if (progress.after() != null) {
      from = successor(progress.after());
      out.println("restore: resuming after key '" + new String(progress.after(), StandardCharsets.UTF_8)
          + "' (" + progress.counts() + " before), as " + progressFile.path() + " says");
    }
    RestoreCounts counts = progress.counts();
    // Only a pass over whole backups reads every copy the manifests count.
    long copies = options.start() == null && options.end() == null && progress.after() == null
        ? backups.stream().mapToLong(backup -> backup.manifest().records()).sum() : -1;
    int batchRecords = Math.min(options.batchRecords(), cluster.getInteger("maxRecords", options.batchRecords()));
    RestoreSender sender = new RestoreSender(client, options, counts, progressFile);
    long startedNanos = System.nanoTime();
    long sentBefore = counts.stored.get() + counts.newer.get() + counts.deleted.get();
    List<RecordsSnapshot> snapshots = new ArrayList<>();
    List<RecordsSnapshot.Cursor> cursors = new ArrayList<>();
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "restore-progress");
      thread.setDaemon(true);
      return thread;
    });
    String broken = null;
    try {
      for (NodeBackup backup : backups) {
        RecordsSnapshot snapshot = backup.open();
        snapshots.add(snapshot);
        cursors.add(snapshot.cursor(from, options.end()));
      }
      BackupMerge merge = new BackupMerge(cursors);
      ticker.scheduleAtFixedRate(() -> out.println(progressLine(merge, copies, counts, sentBefore, startedNanos)),
          PROGRESS_EVERY_MS, PROGRESS_EVERY_MS, TimeUnit.MILLISECONDS);
      if (options.rollback()) {
        try (Stream<byte[]> keys = client.liveKeys(from, options.end())) {
          send(new RollbackPlan(merge, keys.iterator(), System.currentTimeMillis()), batchRecords, sender);
        }
      } else {
        send(merge, batchRecords, sender);
      }
    } catch (BackupException | StorageException | UncheckedIOException e) {
      // A backup unreadable midway, or the cluster's key listing cut short: what went through stays confirmed.
      broken = e.getMessage();
    } finally {
      sender.drain();
      ticker.shutdownNow();
      cursors.forEach(RecordsSnapshot.Cursor::close);
      snapshots.forEach(RecordsSnapshot::close);
    }
    double seconds = (System.nanoTime() - startedNanos) / 1e9;
    String stopped = broken != null ? broken : sender.stopped();
    if (stopped != null) {
      out.println("restore: stopped: " + stopped);
      out.println("restore: " + counts + "; run the same command again to resume (progress in " + progressFile.path() + ")");
      return 1;
    }
    RestoreProgress.delete(progressFile.path());
    out.println(String.format(Locale.ROOT, "restore: done in %.1f s: %s", seconds, counts));
    return 0;
  }

  /** {@code ~/.quorumkv/restore/FINGERPRINT.json}: the user's own, so no one else can plant or read it. */
  private static Path defaultProgressFile(String fingerprint) {
    Path dir = Path.of(System.getProperty("user.home"), ".quorumkv", "restore");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new BackupException("cannot create " + dir + " for the progress file (name one with --progress): "
          + e.getMessage());
    }
    return dir.resolve(fingerprint + ".json");
  }

  private static void send(Iterator<RangeEntry> records, int batchRecords, RestoreSender sender)
      throws InterruptedException {
    RestoreBatch batch = new RestoreBatch();
    while (records.hasNext() && sender.stopped() == null) {
      RangeEntry next = records.next();
      batch.add(next.key(), next.record());
      if (batch.full(batchRecords)) {
        sender.submit(batch);
        batch = new RestoreBatch();
      }
    }
    if (!batch.isEmpty() && sender.stopped() == null) {
      sender.submit(batch);
    }
  }

  /** Every backup the options name, each checked against its manifest before anything is sent. */
  private List<NodeBackup> checkedBackups() {
    List<NodeBackup> backups = new ArrayList<>();
    for (Path path : options.from()) {
      backups.addAll(NodeBackup.under(path));
    }
    long records = 0;
    for (NodeBackup backup : backups) {
      backup.verify();
      records += backup.manifest().records();
    }
    out.println("restore: " + backups.size() + " node backup" + (backups.size() == 1 ? "" : "s") + " checked, "
        + records + " records in all");
    return backups;
  }

  private void warnIfOlderThanPurgeGrace(List<NodeBackup> backups, long purgeGraceMs) {
    long oldest = backups.stream().mapToLong(backup -> backup.manifest().createdAtMillis()).min().orElseThrow();
    if (!options.rollback() && System.currentTimeMillis() - oldest > purgeGraceMs) {
      out.println("restore: warning: a backup was taken " + Instant.ofEpochMilli(oldest) + ", longer ago than the"
          + " cluster's purge grace (" + purgeGraceMs + " ms): keys deleted since and purged can come back");
    }
  }

  private String range() {
    return "[" + (options.start() == null ? "first key" : new String(options.start(), StandardCharsets.UTF_8)) + ", "
        + (options.end() == null ? "last key]" : new String(options.end(), StandardCharsets.UTF_8) + ")");
  }

  private static String progressLine(BackupMerge merge, long copies, RestoreCounts counts, long sentBefore,
                                     long startedNanos) {
    long read = merge.copiesRead();
    double seconds = Math.max(1e-3, (System.nanoTime() - startedNanos) / 1e9);
    long sent = counts.stored.get() + counts.newer.get() + counts.deleted.get() - sentBefore;
    String position = copies < 0 ? String.format(Locale.ROOT, "read %,d backed-up copies", read)
        : String.format(Locale.ROOT, "read %,d of %,d backed-up copies (%d%%)", read, copies,
        copies == 0 ? 100 : 100 * read / copies);
    return String.format(Locale.ROOT, "restore: %s; %,.0f records a second; %s", position, sent / seconds, counts);
  }

  /** The smallest key after {@code key}. */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }
}
