package io.quorumkv.replication;

import io.vertx.core.Future;

import java.time.InstantSource;
import java.util.function.Supplier;

/**
 * Compare-and-set, run on the key's first live replica: under the key's node-wide lock, reads
 * the freshest record at the request's quorum, checks the condition, and writes in one attempt
 * at a version above the one read (the read moved this node's clock past it). A replica holding
 * a version newer still (an unconditional write meanwhile) makes the write fail as a 412: it
 * is never placed above a version it did not check. A write expecting a version older than this
 * node's own copy fails at once, without a quorum read: so in a contended read-modify-write loop
 * the doomed attempts hold the lock only for a local read. As long as every conditional write on a key
 * goes through this node and read and write quorums overlap, two writes expecting the same
 * version cannot both succeed. While a topology change moves the key's first replica (its
 * cutover), the write is refused ({@link SerializerMovingException}), checked before the lock and
 * again under it, so that the old first replica and the new one never run the key's writes at once.
 */
public final class ConditionalWrites {
  private final Coordinator coordinator;
  private final Replica local;
  private final KeyLocks locks;
  private final InstantSource wallClock;
  private final long maxLockWaitMs;

  /** @param maxLockWaitMs how long a write may wait for the key's earlier conditional writes */
  public ConditionalWrites(Coordinator coordinator, Replica local, KeyLocks locks, InstantSource wallClock,
                           long maxLockWaitMs) {
    this.coordinator = coordinator;
    this.local = local;
    this.locks = locks;
    this.wallClock = wallClock;
    this.maxLockWaitMs = maxLockWaitMs;
  }

  public Future<Long> put(byte[] key, byte[] value, long expiresAt, Quorum quorum, Condition condition) {
    return whenHolds(key, quorum, condition, () -> coordinator.putOnce(key, value, expiresAt, quorum));
  }

  public Future<Long> delete(byte[] key, Quorum quorum, Condition condition) {
    return whenHolds(key, quorum, condition, () -> coordinator.deleteOnce(key, quorum));
  }

  private Future<Long> whenHolds(byte[] key, Quorum quorum, Condition condition, Supplier<Future<Long>> write) {
    return unlessRuledOutHere(key, quorum, condition, () -> locks.withLock(key, maxLockWaitMs,
        () -> unlessRuledOutHere(key, quorum, condition, () -> checkedAtQuorum(key, quorum, condition, write))));
  }

  /**
   * Fails at once when the key's serializer is moving, or when this node's own copy is already
   * newer than the version expected (checked before the lock, and again under it, where the
   * previous holder's write has just landed); otherwise goes on with {@code next}.
   */
  private Future<Long> unlessRuledOutHere(byte[] key, Quorum quorum, Condition condition,
                                          Supplier<Future<Long>> next) {
    if (coordinator.serializerMoving(key, quorum.from())) {
      return Future.failedFuture(new SerializerMovingException());
    }
    return local.read(key).compose(held -> {
      if (condition.ruledOutBy(held)) {
        Long current = Condition.liveVersion(held, wallClock.millis());
        return Future.failedFuture(new ConditionFailedException(current, "a newer version " + held.version()
            + " exists"));
      }
      return next.get();
    });
  }

  private Future<Long> checkedAtQuorum(byte[] key, Quorum quorum, Condition condition, Supplier<Future<Long>> write) {
    return coordinator.read(key, quorum).compose(freshest -> {
      long now = wallClock.millis();
      if (!condition.holds(freshest, now)) {
        Long current = Condition.liveVersion(freshest, now);
        return Future.failedFuture(new ConditionFailedException(current,
            current == null ? "the key is absent" : "the key's freshest version is " + current));
      }
      return write.get().recover(failure -> Future.failedFuture(failure instanceof WriteSupersededException superseded
          ? new ConditionFailedException(superseded.keptVersion(),
              "a newer version " + superseded.keptVersion() + " was written meanwhile")
          : failure));
    });
  }
}
