package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects the outcomes of one write's replica calls. The write targets one set of replicas, or
 * during a topology change two (the key's old and new owners, see {@code Topology#writeSets}):
 * it succeeds once {@code ack} replicas of each set (all of a smaller set) stored it; it fails
 * as soon as that can no longer happen in some set, with {@link WriteSupersededException} when
 * replicas refused it for holding a newer record, else with {@link NotEnoughReplicasException}.
 * Outcomes after that change nothing. Used from one event loop only.
 */
final class WriteQuorumCollector {
  private final Quorum quorum;
  private final List<List<NodeUrl>> sets;
  private final int[] needed;
  private final int[] stored;
  private final int[] lost;
  private final Promise<Void> outcome = Promise.promise();
  private List<String> failures = List.of();
  private final int targets;
  private int storedAnywhere;
  private int superseded;
  private int diskFull;
  private long keptVersion;

  /** A write to {@code from} replicas, any of which counts toward {@code ack}. */
  WriteQuorumCollector(Quorum quorum) {
    this(quorum, null);
  }

  /** @param sets the sets the write needs {@code ack} in; null for one set of every tracked replica */
  WriteQuorumCollector(Quorum quorum, List<List<NodeUrl>> sets) {
    this.quorum = quorum;
    this.sets = sets;
    int count = sets == null ? 1 : sets.size();
    this.needed = new int[count];
    this.stored = new int[count];
    this.lost = new int[count];
    this.targets = sets == null ? quorum.from() : distinctNodes(sets);
    for (int i = 0; i < count; i++) {
      needed[i] = sets == null ? quorum.ack() : Math.min(quorum.ack(), sets.get(i).size());
    }
  }

  private static int distinctNodes(List<List<NodeUrl>> sets) {
    if (sets.size() == 1) {
      return sets.get(0).size();
    }
    Set<NodeUrl> nodes = new HashSet<>();
    sets.forEach(nodes::addAll);
    return nodes.size();
  }

  void track(NodeUrl replica, Future<WriteAnswer> write) {
    write.onComplete(done -> {
      boolean storedHere = done.succeeded() && done.result().stored();
      if (storedHere) {
        storedAnywhere++;
      } else if (done.succeeded()) {
        superseded++;
        keptVersion = Math.max(keptVersion, done.result().keptVersion());
      } else {
        if (failures.isEmpty()) {
          failures = new ArrayList<>();
        }
        failures.add(replica + ": " + done.cause().getMessage());
        if (ReplicaFailure.kindOf(done.cause()) == ReplicaFailure.Kind.DISK_FULL) {
          diskFull++;
        }
      }
      boolean reachable = true;
      boolean reached = true;
      for (int i = 0; i < needed.length; i++) {
        if (sets == null || sets.get(i).contains(replica)) {
          if (storedHere) {
            stored[i]++;
          } else {
            lost[i]++;
          }
        }
        reached &= stored[i] >= needed[i];
        reachable &= sizeOf(i) - lost[i] >= needed[i];
      }
      if (reached) {
        outcome.tryComplete();
      } else if (!reachable) {
        outcome.tryFail(superseded > 0
            ? new WriteSupersededException(quorum.ack(), storedAnywhere, superseded, keptVersion)
            : new NotEnoughReplicasException(quorum.ack(), storedAnywhere, targets, failures,
                diskFull == failures.size()));
      }
    });
  }

  private int sizeOf(int set) {
    return sets == null ? quorum.from() : sets.get(set).size();
  }

  Future<Void> outcome() {
    return outcome.future();
  }
}
