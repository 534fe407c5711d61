package io.quorumkv.backup;

import io.quorumkv.peer.Throttle;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Sends a restore's batches, at most {@code inFlight} at once and at most {@code recordsPerSecond}
 * records a second. A batch that fails, or has records that fail, goes again a few times, some
 * seconds apart; then the restore stops sending. The progress file moves to the last key of the
 * longest run of batches that all went through, so a rerun resumes right after it.
 */
final class RestoreSender {
  private static final int ATTEMPTS = 5;
  private static final long FIRST_RETRY_MS = 500;

  private final RestoreClient client;
  private final boolean fresh;
  private final int inFlight;
  private final Semaphore slots;
  private final Throttle throttle;
  private final RestoreCounts counts;
  /** The counts of the batches up to the progress file's key: what a rerun starts from. */
  private final RestoreCounts confirmed;
  private final ProgressFile progressFile;
  private final Map<Long, Finished> finishedAhead = new HashMap<>();
  private long nextSequence;
  private long confirmedUpTo;
  private volatile String stopped;

  private record Finished(byte[] lastKey, long stored, long newer, long deleted) {
  }

  /** @param counts the counts so far (a resumed restore's start with the earlier run's), kept current as batches finish */
  RestoreSender(RestoreClient client, RestoreOptions options, RestoreCounts counts, ProgressFile progressFile) {
    this.client = client;
    this.fresh = options.rollback();
    this.inFlight = options.inFlightBatches();
    this.slots = new Semaphore(inFlight);
    this.throttle = Throttle.blocking(options.recordsPerSecond());
    this.counts = counts;
    this.confirmed = counts.copy();
    this.progressFile = progressFile;
  }

  /** Why the restore stopped sending, null while it goes on. */
  String stopped() {
    return stopped;
  }

  /** Sends the batch once the rate and the batches in flight allow (blocking until then). */
  void submit(RestoreBatch batch) throws InterruptedException {
    throttle.await(batch.size(), 0);
    slots.acquire();
    long sequence = nextSequence++;
    attempt(batch, 1).whenComplete((answer, failure) -> {
      try {
        finished(sequence, batch, answer, failure);
      } catch (RuntimeException e) {
        stop(e.getMessage()); // such as a progress file that cannot be written
      } finally {
        slots.release();
      }
    });
  }

  /** Waits for every batch sent to be answered. */
  void drain() throws InterruptedException {
    slots.acquire(inFlight);
    slots.release(inFlight);
  }

  private CompletableFuture<JsonObject> attempt(RestoreBatch batch, int attempt) {
    return client.send(batch.encode(), fresh).handle((answer, failure) -> {
      boolean complete = failure == null && answer.getLong("failed") == 0;
      if (complete || attempt == ATTEMPTS || stopped != null) {
        return failure == null ? CompletableFuture.completedFuture(answer)
            : CompletableFuture.<JsonObject>failedFuture(failure);
      }
      Executor later = CompletableFuture.delayedExecutor(FIRST_RETRY_MS << (attempt - 1), TimeUnit.MILLISECONDS);
      return CompletableFuture.supplyAsync(() -> null, later).thenCompose(ignored -> attempt(batch, attempt + 1));
    }).thenCompose(next -> next);
  }

  private synchronized void finished(long sequence, RestoreBatch batch, JsonObject answer, Throwable failure) {
    if (failure != null) {
      counts.failed.addAndGet(batch.size());
      stop("a batch failed " + ATTEMPTS + " times: " + RestoreClient.describe(failure));
      return;
    }
    long deleted = fresh ? Math.min(batch.tombstones(), answer.getLong("stored")) : 0;
    Finished done = new Finished(batch.lastKey(), answer.getLong("stored") - deleted, answer.getLong("newer"), deleted);
    counts.stored.addAndGet(done.stored());
    counts.deleted.addAndGet(done.deleted());
    counts.newer.addAndGet(done.newer());
    long failed = answer.getLong("failed");
    if (failed > 0) {
      counts.failed.addAndGet(failed);
      stop(failed + " records of a batch failed " + ATTEMPTS + " times, the last because: " + answer.getString("error"));
      return;
    }
    finishedAhead.put(sequence, done);
    byte[] confirmedKey = null;
    while (finishedAhead.containsKey(confirmedUpTo)) {
      Finished next = finishedAhead.remove(confirmedUpTo++);
      confirmed.stored.addAndGet(next.stored());
      confirmed.newer.addAndGet(next.newer());
      confirmed.deleted.addAndGet(next.deleted());
      confirmedKey = next.lastKey();
    }
    if (confirmedKey != null) {
      RestoreProgress.save(progressFile, confirmedKey, confirmed);
    }
  }

  private synchronized void stop(String reason) {
    if (stopped == null) {
      stopped = reason;
    }
  }
}
