package io.quorumkv.replication;

import io.quorumkv.admission.ByteBudget;
import io.quorumkv.cluster.LiveNodes;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.ReplicaPlacement;
import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.storage.Record;
import io.quorumkv.versioning.ClockException;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Runs a client request against the key's replicas: the first {@code from} nodes of its
 * rendezvous order over the topology in force (during a change, writes go to the key's old and new
 * owners and need {@code ack} in each, see {@link ReplicaPlacement#writeSets}), called in parallel (the
 * others over their batch streams first, then this node directly). Writes are versioned from this
 * node's clock, carry {@code from} as their replica count (the key's {@link HomeSet}), and are
 * answered once {@code ack} replicas stored them as their freshest record (replicas holding a newer
 * one make the write go again above it); a replica that misses one gets a hint. Reads answer by
 * {@link ReadQuorumCollector}'s rule, then {@link ReadRepair} fixes stale replicas of the key's home
 * set. A replica that membership sees down fails at once.
 */
public final class Coordinator {
  private static final ReplicaFailure DOWN = new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down");
  private static final long NO_RETRIES = Long.MIN_VALUE;
  /** A trailing write holds the value and one encoding of it (for the disk or a hint). */
  private static final int HEAP_COPIES_PER_TRAILING_WRITE = 2;

  private final HybridLogicalClock clock;
  private final Supplier<? extends ReplicaPlacement> topology;
  private final LiveNodes liveNodes;
  private final ReplicaDirectory replicas;
  private final NodeUrl self;
  private final MissedWrites missedWrites;
  private final ReadRepair readRepair;
  private final ReplicationObserver observer;
  private final InFlightWrites inFlight;
  private final ByteBudget trailingBytes;
  private final long retryBudgetNanos;

  /**
   * @param topology       the topology in force, read afresh by each request
   * @param trailingBytes  holds a large value's bytes while its replica writes run on after the answer
   * @param retryBudgetMs  how long after a write's first attempt it may go again above a newer version
   */
  public Coordinator(HybridLogicalClock clock, Supplier<? extends ReplicaPlacement> topology, LiveNodes liveNodes,
                     ReplicaDirectory replicas, NodeUrl self, MissedWrites missedWrites, ReadRepair readRepair,
                     ReplicationObserver observer, InFlightWrites inFlight, ByteBudget trailingBytes,
                     long retryBudgetMs) {
    this.clock = clock;
    this.topology = topology;
    this.liveNodes = liveNodes;
    this.replicas = replicas;
    this.self = self;
    this.missedWrites = missedWrites;
    this.readRepair = readRepair;
    this.observer = observer;
    this.inFlight = inFlight;
    this.trailingBytes = trailingBytes;
    this.retryBudgetNanos = retryBudgetMs * 1_000_000;
  }

  /**
   * The freshest record the quorum saw, which may be a tombstone or expired; null if none had one.
   * A replica's record whose version is too far ahead of this node's clock counts as a failed
   * answer: it is neither returned nor repaired onto others, and the clock does not adopt it.
   */
  public Future<Record> read(byte[] key, Quorum quorum) {
    ReadQuorumCollector collector = new ReadQuorumCollector(quorum);
    ReplicaPlacement topology = this.topology.get();
    List<NodeUrl> nodes = selfLast(topology.readReplicas(key, quorum.from()));
    if (nodes.size() == 1) {
      NodeUrl only = nodes.get(0);
      collector.track(only, call(only, replica -> replica.read(key)).compose(this::observed));
      return collector.outcome().andThen(this::countQuorumFailure);
    }
    // One replica sends the value (this node when it holds a copy), the others their digests.
    NodeUrl valueFrom = nodes.contains(self) ? self : nodes.get(0);
    Map<NodeUrl, Future<Record>> answers = new LinkedHashMap<>();
    for (NodeUrl node : nodes) {
      Future<Record> answer = call(node, replica -> node.equals(valueFrom) ? replica.read(key) : replica.readDigest(key))
          .compose(this::observed).andThen(read -> {
            if (read.succeeded() && LeftOutValues.isDigest(read.result())) {
              observer.digestReceived();
            }
          });
      answers.put(node, answer);
      collector.track(node, answer);
    }
    readRepair.afterAllAnswers(key, answers, replicas, topology.readPlacement());
    return collector.outcome().compose(freshest -> LeftOutValues.isDigest(freshest)
        ? readWhole(key, freshest, answers)
        : Future.succeededFuture(freshest)).andThen(this::countQuorumFailure);
  }

  /**
   * The value of a read whose freshest answer was a digest: read whole from the replica that sent
   * it, which holds that version or, written since, a newer one.
   */
  private Future<Record> readWhole(byte[] key, Record digest, Map<NodeUrl, Future<Record>> answers) {
    NodeUrl holder = ReadRepair.senderOf(digest, answers);
    observer.valueReadAfterDigest();
    return call(holder, replica -> replica.read(key)).compose(this::observed).compose(whole -> {
      if (whole == null || whole.version() < digest.version()) {
        return Future.failedFuture(new NotEnoughReplicasException(1, 0, 1,
            List.of(holder + ": sent a digest of version " + digest.version() + ", then no value as fresh")));
      }
      return Future.succeededFuture(whole);
    });
  }

  /** Moves the clock past the record's version, or fails when it is too far ahead to adopt. */
  private Future<Record> observed(Record record) {
    if (record == null) {
      return Future.succeededFuture();
    }
    try {
      clock.observe(record.version());
      return Future.succeededFuture(record);
    } catch (ClockException e) {
      return Future.failedFuture(new ReplicaFailure(ReplicaFailure.Kind.FAILED, "refused: " + e.getMessage()));
    }
  }

  /** Writes the value; completes with its version once {@code ack} replicas stored it as their freshest. */
  public Future<Long> put(byte[] key, byte[] value, long expiresAt, Quorum quorum) {
    return putWithin(key, value, expiresAt, quorum, true);
  }

  /** Writes a tombstone; completes with its version once {@code ack} replicas stored it as their freshest. */
  public Future<Long> delete(byte[] key, Quorum quorum) {
    return deleteWithin(key, quorum, true);
  }

  /**
   * {@link #put} in a single attempt: fails with {@link WriteSupersededException} instead of going
   * again above a newer record, for a write that must not land on a version it did not check.
   */
  public Future<Long> putOnce(byte[] key, byte[] value, long expiresAt, Quorum quorum) {
    return putWithin(key, value, expiresAt, quorum, false);
  }

  /** {@link #delete} in a single attempt, as {@link #putOnce}. */
  public Future<Long> deleteOnce(byte[] key, Quorum quorum) {
    return deleteWithin(key, quorum, false);
  }

  /**
   * Writes a record as it is, its version included (a backup's), to every replica the key has for
   * the record's replica count (both sets during a change): completes with {@code true} when every
   * one stored it, {@code false} when at least one already held a record that supersedes it. In that
   * case the freshest replica's record is then copied to the others, so a replica that lost its data
   * ends with the newer write, not the restored one. Fails when a replica is down or fails, or when
   * the version is too far ahead of this node's clock: a restore is run again, never hinted.
   */
  public Future<Boolean> restore(byte[] key, Record record) {
    try {
      clock.observe(record.version());
    } catch (ClockException e) {
      return Future.failedFuture(new ReplicaFailure(ReplicaFailure.Kind.REFUSED, "refused: " + e.getMessage()));
    }
    List<NodeUrl> targets = selfLast(targetsOf(topology.get().writeSets(key, record.replicas())));
    List<Future<WriteAnswer>> answers = new ArrayList<>(targets.size());
    for (NodeUrl node : targets) {
      answers.add(call(node, replica -> replica.write(key, record)));
    }
    return Future.all(answers).compose(all -> {
      NodeUrl freshest = null;
      long freshestVersion = Long.MIN_VALUE;
      for (int i = 0; i < targets.size(); i++) {
        WriteAnswer answer = answers.get(i).result();
        if (!answer.stored() && answer.keptVersion() > freshestVersion) {
          freshest = targets.get(i);
          freshestVersion = answer.keptVersion();
        }
      }
      return freshest == null ? Future.succeededFuture(true) : spread(key, freshest, targets).map(false);
    });
  }

  /** Copies the record {@code holder} keeps for the key to the other nodes (those holding it or newer keep theirs). */
  private Future<Void> spread(byte[] key, NodeUrl holder, List<NodeUrl> nodes) {
    return call(holder, replica -> replica.read(key)).compose(kept -> {
      List<Future<WriteAnswer>> copies = new ArrayList<>();
      for (NodeUrl node : nodes) {
        if (kept != null && !node.equals(holder)) {
          copies.add(call(node, replica -> replica.write(key, kept)));
        }
      }
      return Future.all(copies).mapEmpty();
    });
  }

  /** Whether the key's conditional writes must wait: its serializer moves in the cutover under way. */
  public boolean serializerMoving(byte[] key, int from) {
    return topology.get().serializerMoves(key, from, liveNodes::isAlive);
  }

  /**
   * The first node of the key's {@code from} replicas that membership sees alive, null when none
   * is: the node that serializes the key's conditional writes.
   */
  public NodeUrl firstLiveReplica(byte[] key, int from) {
    for (NodeUrl node : topology.get().readReplicas(key, from)) {
      if (liveNodes.isAlive(node)) {
        return node;
      }
    }
    return null;
  }

  private Future<Long> putWithin(byte[] key, byte[] value, long expiresAt, Quorum quorum, boolean retry) {
    return write(key, version -> Record.live(version, value, expiresAt, quorum.from()), quorum, retry)
        .andThen(this::countQuorumFailure);
  }

  private Future<Long> deleteWithin(byte[] key, Quorum quorum, boolean retry) {
    return write(key, version -> Record.tombstone(version, quorum.from()), quorum, retry)
        .andThen(this::countQuorumFailure);
  }

  private Future<Long> write(byte[] key, LongFunction<Record> recordAt, Quorum quorum, boolean retry) {
    return write(key, recordAt, quorum, retry ? System.nanoTime() : NO_RETRIES);
  }

  /**
   * One attempt of a write at a fresh version. When replicas refuse it for holding a newer
   * record (a coordinator with a clock behind theirs), the clock moves past that record and the
   * write goes again above it, for as long as the retry budget allows: a write is acknowledged only
   * as the freshest version of {@code ack} replicas. A budget of time, not a count of attempts: on a
   * hot key at ack 3 most attempts lose the race, and a cap of 16 left some writers with a 503.
   *
   * @param firstAttemptNanos when the write's first attempt started, {@link #NO_RETRIES} for a single attempt
   */
  private Future<Long> write(byte[] key, LongFunction<Record> recordAt, Quorum quorum, long firstAttemptNanos) {
    return clock.issue()
        .compose(version -> writeAt(key, recordAt, recordAt.apply(version), quorum, firstAttemptNanos));
  }

  private Future<Long> writeAt(byte[] key, LongFunction<Record> recordAt, Record record, Quorum quorum,
                               long firstAttemptNanos) {
    List<List<NodeUrl>> sets = topology.get().writeSets(key, quorum.from());
    WriteQuorumCollector collector = new WriteQuorumCollector(quorum, sets);
    // Only a large value's writes are followed to their end: a small one's answer adds no list.
    List<Future<?>> settled = LargeValueSizes.isLarge(record.value().length) ? new ArrayList<>() : null;
    for (NodeUrl node : selfLast(targetsOf(sets))) {
      Future<WriteAnswer> written = call(node, replica -> replica.write(key, record));
      Future<WriteAnswer> ended = written;
      if (!node.equals(self)) {
        ended = written.recover(missed -> ReplicaFailure.kindOf(missed) == ReplicaFailure.Kind.REFUSED
            ? Future.succeededFuture()
            : missedWrites.missed(node, key, record).map((WriteAnswer) null));
        inFlight.track(ended);
      }
      if (settled != null) {
        settled.add(ended);
      }
      collector.track(node, written);
    }
    Future<Void> outcome = collector.outcome();
    if (settled != null) {
      outcome.onComplete(answered -> holdWhileTrailing(record, settled));
    }
    return outcome.map(record.version()).recover(failure -> {
      if (failure instanceof WriteSupersededException superseded && firstAttemptNanos != NO_RETRIES
          && System.nanoTime() - firstAttemptNanos < retryBudgetNanos) {
        observer.writeSuperseded();
        clock.observe(superseded.keptVersion());
        return write(key, recordAt, quorum, firstAttemptNanos);
      }
      return Future.failedFuture(failure);
    });
  }

  /**
   * Holds a large value's bytes while writes of it outlive the answer (a slower replica, a hint
   * being stored), so the budget that admitted its body does not admit more while it is still on
   * the heap; forced, as the work is already under way.
   */
  private void holdWhileTrailing(Record record, List<Future<?>> settled) {
    List<Future<?>> running = settled.stream().filter(write -> !write.isComplete()).toList();
    if (running.isEmpty()) {
      return;
    }
    long bytes = (long) record.value().length * HEAP_COPIES_PER_TRAILING_WRITE;
    trailingBytes.acquire(bytes);
    Future.join(running).onComplete(ended -> trailingBytes.release(bytes));
  }

  private static List<NodeUrl> targetsOf(List<List<NodeUrl>> sets) {
    if (sets.size() == 1) {
      return sets.get(0);
    }
    List<NodeUrl> targets = new ArrayList<>(sets.get(0));
    for (NodeUrl node : sets.get(1)) {
      if (!targets.contains(node)) {
        targets.add(node);
      }
    }
    return targets;
  }

  /**
   * The nodes with this one moved to the end: the peers' batches leave before the local read or
   * write starts, so they work while it runs instead of after.
   */
  private List<NodeUrl> selfLast(List<NodeUrl> nodes) {
    int selfAt = nodes.indexOf(self);
    if (selfAt < 0 || selfAt == nodes.size() - 1) {
      return nodes;
    }
    List<NodeUrl> ordered = new ArrayList<>(nodes.size());
    for (NodeUrl node : nodes) {
      if (!node.equals(self)) {
        ordered.add(node);
      }
    }
    ordered.add(self);
    return ordered;
  }

  private <T> Future<T> call(NodeUrl node, Function<Replica, Future<T>> operation) {
    Future<T> call = liveNodes.isAlive(node) ? operation.apply(replicas.get(node)) : Future.failedFuture(DOWN);
    return call.andThen(done -> {
      if (done.succeeded()) {
        observer.replicaCallSucceeded();
      } else {
        observer.replicaCallFailed(ReplicaFailure.kindOf(done.cause()));
      }
    });
  }

  private void countQuorumFailure(io.vertx.core.AsyncResult<?> outcome) {
    if (outcome.failed() && outcome.cause() instanceof NotEnoughReplicasException) {
      observer.notEnoughReplicas();
    }
  }
}
