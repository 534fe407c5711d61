package io.quorumkv.backup;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.RecordsSnapshot;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code java -jar quorumkv.jar restore}: checks every backup named, then streams their records
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
    List<NodeBackup> backups = checkedBackups();
    RestoreClient client = new RestoreClient(options.url(), options.token());
    JsonObject cluster = client.describe();
    JsonObject topology = cluster.getJsonObject("topology");
    out.println("restore: into the cluster of " + cluster.getString("node") + " (topology epoch "
        + topology.getLong("epoch") + ", " + topology.getJsonObject("members").size() + " nodes)"
        + (options.rollback() ? ", rolling back " + range() + " at fresh versions" : ", keeping each record's version"
        + (options.start() == null && options.end() == null ? "" : ", keys " + range())));
    warnIfOlderThanPurgeGrace(backups, cluster.getLong("purgeGraceMs"));
    String fingerprint = options.fingerprint();
    RestoreProgress progress = options.fromScratch() ? new RestoreProgress(null, new RestoreCounts())
        : RestoreProgress.load(options.progress(), fingerprint);
    byte[] from = options.start();
    if (progress.after() != null) {
      from = successor(progress.after());
      out.println("restore: resuming after key '" + new String(progress.after(), StandardCharsets.UTF_8)
          + "' (" + progress.counts() + " before), as " + options.progress() + " says");
    }
    RestoreCounts counts = progress.counts();
    long copies = backups.stream().mapToLong(backup -> backup.manifest().records()).sum();
    RestoreSender sender = new RestoreSender(client, options, counts, fingerprint);
    long startedNanos = System.nanoTime();
    List<RecordsSnapshot> snapshots = new ArrayList<>();
    List<RecordsSnapshot.Cursor> cursors = new ArrayList<>();
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "restore-progress");
      thread.setDaemon(true);
      return thread;
    });
    try {
      for (NodeBackup backup : backups) {
        RecordsSnapshot snapshot = backup.open();
        snapshots.add(snapshot);
        cursors.add(snapshot.cursor(from, options.end()));
      }
      BackupMerge merge = new BackupMerge(cursors);
      ticker.scheduleAtFixedRate(() -> out.println(progressLine(merge, copies, counts, startedNanos)),
          PROGRESS_EVERY_MS, PROGRESS_EVERY_MS, TimeUnit.MILLISECONDS);
      if (options.rollback()) {
        try (Stream<byte[]> keys = client.liveKeys(from, options.end())) {
          send(new RollbackPlan(merge, keys.iterator(), System.currentTimeMillis()), sender);
        }
      } else {
        send(new Iterator<>() {
          @Override
          public boolean hasNext() {
            return merge.hasNext();
          }

          @Override
          public RangeEntry next() {
            return merge.next();
          }
        }, sender);
      }
    } finally {
      sender.drain();
      ticker.shutdownNow();
      cursors.forEach(RecordsSnapshot.Cursor::close);
      snapshots.forEach(RecordsSnapshot::close);
    }
    double seconds = (System.nanoTime() - startedNanos) / 1e9;
    if (sender.stopped() != null) {
      out.println("restore: stopped: " + sender.stopped());
      out.println("restore: " + counts + "; run the same command again to resume (progress in "
          + options.progress() + ")");
      return 1;
    }
    RestoreProgress.delete(options.progress());
    out.println(String.format(java.util.Locale.ROOT, "restore: done in %.1f s: %s", seconds, counts));
    return 0;
  }

  private void send(Iterator<RangeEntry> records, RestoreSender sender) throws InterruptedException {
    RestoreBatch batch = new RestoreBatch();
    while (records.hasNext() && sender.stopped() == null) {
      RangeEntry next = records.next();
      batch.add(next.key(), next.record());
      if (batch.full(options.batchRecords())) {
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
    for (java.nio.file.Path path : options.from()) {
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

  private static String progressLine(BackupMerge merge, long copies, RestoreCounts counts, long startedNanos) {
    long read = merge.copiesRead();
    double seconds = Math.max(1e-3, (System.nanoTime() - startedNanos) / 1e9);
    return String.format("restore: read %,d of %,d backed-up copies (%d%%), %,.0f a second; %s", read, copies,
        copies == 0 ? 100 : 100 * read / copies, read / seconds, counts);
  }

  /** The smallest key after {@code key}. */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }
}
