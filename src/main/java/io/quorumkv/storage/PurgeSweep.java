package io.quorumkv.storage;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Drops tombstones and expired records from disk once they are older than the purge grace.
 *
 * <p>A periodic sweep, not a RocksDB compaction filter: RocksJava cannot run a filter written
 * in Java (only RocksDB's built-in C++ ones), and the rule needs our record format and the
 * grace. The sweep walks the store in batches of {@link #BATCH_KEYS} keys, each batch one
 * storage task, so ordinary requests interleave with it. A record is deleted only if it is
 * unchanged since the sweep read it (checked under the key's write lock).
 *
 * <p>The grace and the {@link PurgeGate} exist for replication: a tombstone or an expired record
 * must stay until every replica has learnt of it; dropped earlier, an older live copy on a
 * replica that missed the delete could be read back and repaired onto the others. In a cluster
 * the gate is anti-entropy's: it lets a record go only once exchanges confirmed that every
 * other replica of its key holds it.
 */
public final class PurgeSweep {
  private static final System.Logger LOG = System.getLogger(PurgeSweep.class.getName());
  public static final int BATCH_KEYS = 1_000;
  private static final byte[] FIRST_KEY = new byte[0];

  private final StorageService storage;
  private final long graceMillis;
  private final PurgeGate gate;
  private boolean running;
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong purgedTotal = new AtomicLong();

  /** The outcome of one batch: where the next starts (null when the store is done) and how many records went. */
  public record Step(byte[] nextKey, int purged) {
  }

  /** @param gate lets a record past its grace go only once no other replica can bring it back */
  public PurgeSweep(StorageService storage, long graceMillis, PurgeGate gate) {
    this.storage = storage;
    this.graceMillis = graceMillis;
    this.gate = gate;
  }

  /** True when the record may leave the disk at {@code nowMillis}. */
  public static boolean isPurgeable(Record record, long nowMillis, long graceMillis) {
    long deadSince;
    if (record.tombstone()) {
      deadSince = io.quorumkv.versioning.HybridLogicalClock.millisOf(record.version());
    } else if (record.expires()) {
      deadSince = record.expiresAt();
    } else {
      return false;
    }
    return nowMillis - graceMillis >= deadSince;
  }

  /** Runs one pass over the whole store unless one is still running; completes with the records purged. */
  public Future<Long> runOnce() {
    if (running) {
      return Future.succeededFuture(0L);
    }
    running = true;
    Promise<Long> pass = Promise.promise();
    sweepFrom(FIRST_KEY, 0, pass);
    return pass.future().andThen(done -> {
      running = false;
      if (done.succeeded()) {
        purgedTotal.addAndGet(done.result());
        passes.incrementAndGet();
        if (done.result() > 0) {
          LOG.log(System.Logger.Level.INFO, "purge sweep dropped " + done.result() + " tombstones and expired records");
        }
      }
    });
  }

  /** Passes over the whole store completed since the node started. */
  public long passes() {
    return passes.get();
  }

  /** Records dropped since the node started. */
  public long purgedTotal() {
    return purgedTotal.get();
  }

  /** One batch, then the next from its callback: a loop, not nested Futures, however large the store. */
  private void sweepFrom(byte[] key, long purgedSoFar, Promise<Long> pass) {
    storage.purge(key, BATCH_KEYS, graceMillis, gate).onComplete(step -> {
      if (step.failed()) {
        pass.fail(step.cause());
        return;
      }
      long purged = purgedSoFar + step.result().purged();
      if (step.result().nextKey() == null) {
        pass.complete(purged);
      } else {
        sweepFrom(step.result().nextKey(), purged, pass);
      }
    });
  }
}
