package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.HomeSet;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Read repair: once every replica of a read has answered or failed (well after the client got
 * its answer, if need be), the record every copy converges to ({@link Record#merge} of the
 * answers: the freshest, with the largest replica count seen) is written, in the background, to
 * every replica of the key's {@link HomeSet} that answered with an older version, a smaller
 * count or nothing. Replicas outside the home set are never written: a read with a larger
 * {@code from} than the key was written with does not add copies. A repair is an ordinary
 * internal write carrying the original version, so it never triggers reads or further repairs.
 */
public final class ReadRepair {
  private static final System.Logger LOG = System.getLogger(ReadRepair.class.getName());

  private final LongAdder written = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder compared = new LongAdder();
  private final LongAdder pending = new LongAdder();

  /** Waits for all the read's answers, then repairs the stale replicas of the key's home set. */
  void afterAllAnswers(byte[] key, Map<NodeUrl, Future<Record>> answers, ReplicaDirectory replicas,
                       Rendezvous placement) {
    Future.join(new ArrayList<>(answers.values())).onComplete(all -> {
      repair(key, answers, replicas, placement);
      compared.increment();
    });
  }

  private void repair(byte[] key, Map<NodeUrl, Future<Record>> answers, ReplicaDirectory replicas,
                      Rendezvous placement) {
    Record converged = null;
    for (Future<Record> answer : answers.values()) {
      if (answer.succeeded() && answer.result() != null) {
        converged = Record.merge(converged, answer.result());
      }
    }
    if (converged == null) {
      return;
    }
    List<NodeUrl> home = HomeSet.of(placement, key, converged.replicas());
    List<NodeUrl> behind = new ArrayList<>();
    for (Map.Entry<NodeUrl, Future<Record>> answer : answers.entrySet()) {
      NodeUrl node = answer.getKey();
      Future<Record> result = answer.getValue();
      if (result.succeeded() && home.contains(node) && isBehind(result.result(), converged)) {
        behind.add(node);
      }
    }
    if (behind.isEmpty()) {
      return;
    }
    Record freshest = converged;
    if (!LeftOutValues.isDigest(freshest)) {
      behind.forEach(node -> write(replicas.get(node), node, key, freshest));
      return;
    }
    // Only digests hold the freshest version: its value is read whole once, for every repair.
    Record digest = freshest;
    NodeUrl holder = senderOf(digest, answers);
    pending.increment();
    replicas.get(holder).read(key).onComplete(read -> {
      pending.decrement();
      if (read.failed() || read.result() == null || read.result().version() < digest.version()) {
        failed.add(behind.size());
        LOG.log(System.Logger.Level.DEBUG, "read repair found no value at " + holder + " for its digest");
        return;
      }
      Record whole = Record.merge(read.result(), digest);
      behind.forEach(node -> write(replicas.get(node), node, key, whole));
    });
  }

  /** A replica that answered with a digest of the same version as {@code digest}. */
  static NodeUrl senderOf(Record digest, Map<NodeUrl, Future<Record>> answers) {
    for (Map.Entry<NodeUrl, Future<Record>> answer : answers.entrySet()) {
      Record sent = answer.getValue().succeeded() ? answer.getValue().result() : null;
      if (LeftOutValues.isDigest(sent) && sent.version() == digest.version()) {
        return answer.getKey();
      }
    }
    throw new IllegalStateException("no replica answered a digest of version " + digest.version());
  }

  /**
   * Whether a replica holding {@code held} (null for nothing) lacks something of {@code converged}.
   * A digest of the converged record lacks nothing but its value, which its replica holds.
   */
  private static boolean isBehind(Record held, Record converged) {
    boolean older = LeftOutValues.isDigest(held) ? !LeftOutValues.isDigestOf(held, converged) : converged.supersedes(held);
    return older || held.replicas() < converged.replicas();
  }

  private void write(Replica replica, NodeUrl node, byte[] key, Record record) {
    pending.increment();
    replica.write(key, record)
        .onSuccess(ok -> written.increment())
        .onFailure(e -> {
          failed.increment();
          LOG.log(System.Logger.Level.DEBUG, "read repair of " + node + " failed: " + e.getMessage());
        })
        .onComplete(done -> pending.decrement());
  }

  /** Repairs a stale replica accepted since the node started. */
  public long written() {
    return written.sum();
  }

  /** Repairs that failed (the replica did not answer); the next read or a hint may fix the replica. */
  public long failed() {
    return failed.sum();
  }

  /** Reads whose answers have all arrived and been compared, their repairs (if any) sent. */
  public long compared() {
    return compared.sum();
  }

  /** Repairs sent and not answered yet. */
  public long pending() {
    return pending.sum();
  }
}
