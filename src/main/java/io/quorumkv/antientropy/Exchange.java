package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.Throttle;
import io.quorumkv.replication.ForeignRecords;
import io.quorumkv.replication.Replica;
import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One exchange with one peer, started by this node: roots first (one small round trip when they
 * match), then the digests of differing branches, then the keys of differing segments, then the
 * records of differing keys, read on both sides and the freshest copied where it is missing
 * ({@link RepairPlan}). Repairs are paced by the {@link Throttle}; the first failure ends the
 * exchange unconfirmed, and the next one starts over.
 */
final class Exchange {
  static final int BRANCHES_PER_REQUEST = 64;
  static final int SEGMENTS_PER_REQUEST = 1024;
  static final int KEYS_PER_GROUP = 64;

  private final NodeUrl peer;
  private final long epoch;
  private final HashTree tree;
  private final TreeClient client;
  private final TreeService local;
  private final Replica remoteReplica;
  private final StorageService storage;
  private final HybridLogicalClock clock;
  private final Throttle throttle;
  private final InstantSource wallClock;
  private final long graceMillis;

  private int branchesDiffering;
  private int segmentsDiffering;
  private long keysDiffering;
  private long pushed;
  private long pulled;

  /** @param epoch the topology epoch {@code tree} is shaped for */
  Exchange(NodeUrl peer, long epoch, HashTree tree, TreeClient client, TreeService local, Replica remoteReplica,
           StorageService storage, HybridLogicalClock clock, Throttle throttle, InstantSource wallClock,
           long graceMillis) {
    this.peer = peer;
    this.epoch = epoch;
    this.tree = tree;
    this.client = client;
    this.local = local;
    this.remoteReplica = remoteReplica;
    this.storage = storage;
    this.clock = clock;
    this.throttle = throttle;
    this.wallClock = wallClock;
    this.graceMillis = graceMillis;
  }

  /**
   * Runs the exchange; on success every difference seen was repaired, and the two sides are told
   * so ({@code confirm} with this node's start time, and the peer with its own). The start is
   * taken before the tree is read, and no later than any write still in flight.
   */
  Future<ExchangeResult> run(Confirmations confirmations) {
    long startedAt = local.writeClock().exchangeStart();
    return client.root(peer, epoch, tree.root())
        .compose(remote -> (remote.branches() == null ? Future.<Void>succeededFuture() : repairBranches(remote.branches()))
            .compose(repaired -> client.done(peer, epoch, remote.startedAt())))
        .map(done -> {
          confirmations.confirm(peer, epoch, startedAt);
          return new ExchangeResult(branchesDiffering, segmentsDiffering, keysDiffering, pushed, pulled);
        });
  }

  private Future<Void> repairBranches(long[] remoteBranches) {
    int[] branches = differing(tree.branches(), remoteBranches, 0);
    branchesDiffering = branches.length;
    List<Integer> segments = new ArrayList<>();
    return inChunks(branches, BRANCHES_PER_REQUEST, chunk -> client.segments(peer, epoch, chunk).map(remote -> {
      for (int i = 0; i < chunk.length; i++) {
        for (int segment : differing(tree.segmentsOf(chunk[i]), remote.get(i), chunk[i] * HashTree.SEGMENTS_PER_BRANCH)) {
          segments.add(segment);
        }
      }
      return null;
    })).compose(listed -> {
      segmentsDiffering = segments.size();
      return inChunks(segments.stream().mapToInt(Integer::intValue).toArray(), SEGMENTS_PER_REQUEST,
          this::repairSegments);
    });
  }

  private Future<Void> repairSegments(int[] segments) {
    return Future.all(client.keys(peer, epoch, segments), local.sharedEntries(peer, epoch, segments)).compose(both -> {
      List<TreeProtocol.KeyDigest> remote = both.resultAt(0);
      List<IndexEntry> ours = both.resultAt(1);
      Map<ByteBuffer, Long> ourLeaves = new HashMap<>();
      ours.forEach(entry -> ourLeaves.put(ByteBuffer.wrap(entry.key()), entry.leaf()));
      List<byte[]> keys = new ArrayList<>();
      for (TreeProtocol.KeyDigest digest : remote) {
        Long leaf = ourLeaves.remove(ByteBuffer.wrap(digest.key()));
        if (leaf == null || leaf != digest.leaf()) {
          keys.add(digest.key());
        }
      }
      ourLeaves.keySet().forEach(key -> keys.add(key.array()));
      keysDiffering += keys.size();
      return repairKeys(keys, 0);
    });
  }

  /** Repairs {@code keys} from {@code from} on, a group at a time. */
  private Future<Void> repairKeys(List<byte[]> keys, int from) {
    if (from >= keys.size()) {
      return Future.succeededFuture();
    }
    List<byte[]> group = keys.subList(from, Math.min(keys.size(), from + KEYS_PER_GROUP));
    return throttle.acquire(group.size(), 0)
        .compose(ready -> repairGroup(group))
        .compose(done -> repairKeys(keys, from + group.size()));
  }

  private Future<Void> repairGroup(List<byte[]> keys) {
    List<Future<Record>> ours = new ArrayList<>(keys.size());
    List<Future<Record>> theirs = new ArrayList<>(keys.size());
    for (byte[] key : keys) {
      ours.add(storage.get(key));
      theirs.add(remoteReplica.read(key));
    }
    return Future.all(Future.all(ours), Future.all(theirs)).compose(read -> {
      long now = wallClock.millis();
      List<RepairPlan> plans = new ArrayList<>(keys.size());
      long bytes = 0;
      for (int i = 0; i < keys.size(); i++) {
        RepairPlan plan = RepairPlan.of(ours.get(i).result(), theirs.get(i).result(), now, graceMillis);
        plans.add(plan);
        if (plan.push() || plan.pull()) {
          bytes += keys.get(i).length + plan.winner().value().length;
        }
      }
      return throttle.acquire(0, bytes).compose(paced -> apply(keys, plans));
    });
  }

  private Future<Void> apply(List<byte[]> keys, List<RepairPlan> plans) {
    List<Future<?>> writes = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      byte[] key = keys.get(i);
      RepairPlan plan = plans.get(i);
      if (plan.push()) {
        writes.add(remoteReplica.write(key, plan.winner()).onSuccess(answer -> {
          if (answer.stored()) {
            pushed++;
          }
        }));
      }
      if (plan.pull()) {
        writes.add(ForeignRecords.apply(clock, storage, key, plan.winner()).onSuccess(kept -> pulled++));
      }
    }
    return Future.all(writes).mapEmpty();
  }

  /** Indexes (plus {@code offset}) where the two digest arrays differ. */
  static int[] differing(long[] ours, long[] theirs, int offset) {
    int[] found = new int[ours.length];
    int count = 0;
    for (int i = 0; i < ours.length; i++) {
      if (ours[i] != theirs[i]) {
        found[count++] = offset + i;
      }
    }
    return Arrays.copyOf(found, count);
  }

  /** Runs {@code step} over consecutive chunks of {@code indexes}, one after the other. */
  private static Future<Void> inChunks(int[] indexes, int chunkSize, Function<int[], Future<?>> step) {
    Future<Void> chain = Future.succeededFuture();
    for (int from = 0; from < indexes.length; from += chunkSize) {
      int[] chunk = Arrays.copyOfRange(indexes, from, Math.min(indexes.length, from + chunkSize));
      chain = chain.compose(previous -> step.apply(chunk).mapEmpty());
    }
    return chain;
  }
}
