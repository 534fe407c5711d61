package io.quorumkv.hints;

import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.cluster.RetryWhileAlive;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.replication.MissedWrites;
import io.quorumkv.replication.Replica;
import io.quorumkv.replication.ReplicaDirectory;
import io.quorumkv.replication.ReplicaFailure;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageExecutor;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Hinted handoff: a write that a replica missed (down, timed out, refused) is stored as a hint
 * in the coordinator's own {@link HintStore}, and replayed to that replica when membership sees it join
 * and by periodic retry, oldest first, {@link #BATCH} hints at a time delivered in parallel,
 * so a returning node gets a bounded number of requests in flight. A delivered hint is deleted;
 * a hint older than the hint window is dropped and counted; a replay stops at the first failed
 * delivery and resumes at the next trigger. Replay runs on one event loop (the caller's); the
 * hint store is called on storage workers.
 */
public final class HintedHandoff implements MissedWrites {
  static final int BATCH = 32;
  private static final System.Logger LOG = System.getLogger(HintedHandoff.class.getName());
  static final long FULL_DISK_BACKOFF_MIN_MS = 1_000;
  static final long FULL_DISK_BACKOFF_MAX_MS = 60_000;

  private final HintStore store;
  private final StorageExecutor executor;
  private final HybridLogicalClock clock;
  private final LiveNodes liveNodes;
  private final long windowMillis;
  private final Map<NodeUrl, AtomicLong> pending = new ConcurrentHashMap<>();
  /** Targets whose expired hints are being dropped. */
  private final Set<NodeUrl> dropping = ConcurrentHashMap.newKeySet();
  private final Map<NodeUrl, Future<Void>> replaying = new ConcurrentHashMap<>();
  private final Map<NodeUrl, FullDiskBackoff> fullDisks = new ConcurrentHashMap<>();
  private final Predicate<NodeUrl> departed;
  private final LongAdder stored = new LongAdder();
  private final LongAdder delivered = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private volatile ReplicaDirectory replicas;
  private final Predicate<Hint> wanted;

  /**
   * @param wanted   whether a hint's target should still get its record (it owns the key)
   * @param departed whether a node has left the topology for good: its hints are dropped at once
   */
  public HintedHandoff(HintStore store, StorageExecutor executor, HybridLogicalClock clock, LiveNodes liveNodes,
                       long windowMillis, Predicate<Hint> wanted, Predicate<NodeUrl> departed) {
    this.wanted = wanted;
    this.departed = departed;
    this.store = store;
    this.executor = executor;
    this.clock = clock;
    this.liveNodes = liveNodes;
    this.windowMillis = windowMillis;
  }

  /** Loads the counts of hints kept from before a restart and the replicas to replay to. */
  public Future<Void> start(ReplicaDirectory replicasForReplay) {
    this.replicas = replicasForReplay;
    return executor.submit(store::countByTarget).map(counts -> {
      counts.forEach((target, count) -> pending.computeIfAbsent(target, t -> new AtomicLong()).addAndGet(count));
      return null;
    });
  }

  /** Keeps the write that {@code target} missed. Completes once the hint is in the write-ahead log. */
  @Override
  public Future<Void> missed(NodeUrl target, byte[] key, Record record) {
    Hint hint = new Hint(target, clock.next(), key, record);
    return executor.<Void>submit(() -> {
      store.put(hint);
      return null;
    }).onSuccess(ok -> {
      stored.increment();
      pending.computeIfAbsent(hint.target(), t -> new AtomicLong()).incrementAndGet();
    }).onFailure(e -> LOG.log(System.Logger.Level.WARNING, "hint for " + target + " not stored: " + e.getMessage()));
  }

  /**
   * Replays to every live target that has hints, but for those whose disk was full at the last
   * try, which wait out a backoff (doubling from {@link #FULL_DISK_BACKOFF_MIN_MS} up to
   * {@link #FULL_DISK_BACKOFF_MAX_MS}) instead of being retried hot; completes when those replays end.
   */
  public Future<Void> replayToLiveTargets() {
    List<Future<Void>> replays = new ArrayList<>();
    long now = System.nanoTime();
    for (NodeUrl target : targetsWithHints()) {
      FullDiskBackoff backoff = fullDisks.get(target);
      if (liveNodes.isAlive(target) && (backoff == null || now - backoff.retryAtNanos() >= 0)) {
        replays.add(replay(target).onComplete(replayed -> noteFullDisk(target, replayed)));
      }
    }
    return Future.join(replays).mapEmpty();
  }

  /** How long the target's hints wait after a replay that met its full disk. */
  private record FullDiskBackoff(long delayMs, long retryAtNanos) {
  }

  private void noteFullDisk(NodeUrl target, AsyncResult<Void> replayed) {
    if (replayed.failed() && ReplicaFailure.kindOf(replayed.cause()) == ReplicaFailure.Kind.DISK_FULL) {
      fullDisks.compute(target, (node, previous) -> {
        long delayMs = previous == null ? FULL_DISK_BACKOFF_MIN_MS
            : Math.min(FULL_DISK_BACKOFF_MAX_MS, 2 * previous.delayMs());
        return new FullDiskBackoff(delayMs, System.nanoTime() + delayMs * 1_000_000);
      });
    } else {
      fullDisks.remove(target);
    }
  }

  /**
   * Replays to a node that just joined. Its HTTP server may still be starting, so a failed
   * replay is tried again every {@code retryDelayMs} up to {@code attempts} times.
   */
  public void replayToJoined(io.vertx.core.Vertx vertx, NodeUrl target, long retryDelayMs, int attempts) {
    RetryWhileAlive.run(vertx, liveNodes, target, attempts, attempt -> retryDelayMs, () -> replay(target));
  }

  /** Delivers the target's hints until none is left or one fails; a replay already running is not doubled. */
  public Future<Void> replay(NodeUrl target) {
    Replica replica = replicas.get(target);
    if (replica == null) {
      return Future.succeededFuture();
    }
    Promise<Void> done = Promise.promise();
    Future<Void> running = replaying.putIfAbsent(target, done.future());
    if (running != null) {
      return running;
    }
    done.future().onComplete(ended -> replaying.remove(target, done.future()));
    replayFrom(target, replica, -1, done);
    return done.future();
  }

  /**
   * Delivers the target's hints after {@code afterSequence}, batch by batch, as a loop over
   * callbacks rather than nested Futures (a long replay must not deepen the stack). Each batch
   * settles completely before the next starts or the replay stops at a failure.
   */
  private void replayFrom(NodeUrl target, Replica replica, long afterSequence, Promise<Void> done) {
    executor.submit(() -> store.oldest(target, afterSequence, BATCH)).onComplete(read -> {
      if (read.failed()) {
        done.fail(read.cause());
        return;
      }
      List<Hint> hints = read.result();
      if (hints.isEmpty()) {
        done.complete();
        return;
      }
      List<Future<Void>> deliveries = new ArrayList<>();
      for (Hint hint : hints) {
        deliveries.add(deliver(hint, replica));
      }
      long last = hints.get(hints.size() - 1).sequence();
      Future.join(deliveries).onComplete(batch -> {
        if (batch.failed()) {
          done.fail(batch.cause());
        } else {
          replayFrom(target, replica, last, done);
        }
      });
    });
  }

  /**
   * Drops the expired hints of targets that are not alive, so a long-gone replica's hints do not
   * pile up. A target's drop still running (a slow worker) is not doubled: two would count the
   * same hints twice.
   */
  public Future<Void> dropExpiredHintsOfDownTargets() {
    long expired = HybridLogicalClock.versionAt(clock.wallMillis() - windowMillis);
    List<Future<Void>> drops = new ArrayList<>();
    pending.forEach((target, count) -> {
      // A node that left or was removed gets nothing any more: all its hints go, not only the expired ones.
      long cutoff = departed.test(target) ? Long.MAX_VALUE : expired;
      if (count.get() > 0 && (!liveNodes.isAlive(target) || cutoff == Long.MAX_VALUE) && dropping.add(target)) {
        drops.add(executor.submit(() -> store.dropBefore(target, cutoff)).map(removed -> {
          count.addAndGet(-removed);
          dropped.add(removed);
          return (Void) null;
        }).andThen(done -> dropping.remove(target)));
      }
    });
    return Future.join(drops).mapEmpty();
  }

  private Future<Void> deliver(Hint hint, Replica replica) {
    long ageMillis = clock.wallMillis() - HybridLogicalClock.millisOf(hint.sequence());
    if (ageMillis > windowMillis || !wanted.test(hint)) {
      return remove(hint).onSuccess(ok -> dropped.increment());
    }
    return replica.write(hint.key(), hint.record()).transform(written -> {
      if (written.succeeded()) {
        return remove(hint).onSuccess(ok -> delivered.increment());
      }
      if (ReplicaFailure.kindOf(written.cause()) == ReplicaFailure.Kind.REFUSED) {
        // The replica will never take it (a version too far ahead of its clock): keeping it would block the rest.
        LOG.log(System.Logger.Level.WARNING, "hint for " + hint.target() + " refused, dropped: " + written.cause().getMessage());
        return remove(hint).onSuccess(ok -> dropped.increment());
      }
      return Future.failedFuture(written.cause());
    });
  }

  private Future<Void> remove(Hint hint) {
    return executor.<Void>submit(() -> {
      store.delete(hint.target(), hint.sequence());
      return null;
    }).onSuccess(ok -> {
      AtomicLong count = pending.get(hint.target());
      if (count != null) {
        count.decrementAndGet();
      }
    });
  }

  private Set<NodeUrl> targetsWithHints() {
    Set<NodeUrl> targets = new HashSet<>();
    pending.forEach((target, count) -> {
      if (count.get() > 0) {
        targets.add(target);
      }
    });
    return targets;
  }

  /** Hints waiting per target, ordered by url. */
  public Map<NodeUrl, Long> pendingByTarget() {
    Map<NodeUrl, Long> result = new java.util.TreeMap<>(java.util.Comparator.comparing(NodeUrl::toString));
    pending.forEach((target, count) -> result.put(target, count.get()));
    return result;
  }

  /** Whether any hint waits for delivery. */
  public boolean anyPending() {
    return pending.values().stream().anyMatch(count -> count.get() > 0);
  }

  public long stored() {
    return stored.sum();
  }

  public long delivered() {
    return delivered.sum();
  }

  public long dropped() {
    return dropped.sum();
  }
}
