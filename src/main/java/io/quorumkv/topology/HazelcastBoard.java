package io.quorumkv.topology;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.quorumkv.cluster.EntryFollower;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.cluster.HazelcastSeal;
import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonObject;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The {@link TopologyBoard} on Hazelcast maps, replicated across the members: the topology under
 * one key, changed by Hazelcast's atomic replace; the applied epochs and transfer progress under
 * each node's and transfer's key, followed by entry listeners into local caches; the cluster's id
 * under a key of its own, written once. The map calls,
 * which may block, run one at a time on a worker thread of their own, never on an event loop.
 *
 * <p>With a cluster secret, every value is {@link HazelcastSeal sealed} by its writer, and a value
 * read or heard is taken only if it verifies and its writer may write it: the topology by a node
 * of the topology in force or by the joiner it adds ({@link Topology#letsWrite}), an applied epoch
 * by the node it is about, a transfer's progress by its receiver (and its text must name the
 * transfer of its key). Anything else is {@link BoardRejections ignored, counted and logged}: it
 * is never applied nor cached, and a topology that does not verify is never the base of a change
 * ({@link UnverifiedTopologyException}), only replaced by {@link #restore}. Without a secret,
 * values are stored bare, as before (Hazelcast is trusted).
 */
public final class HazelcastBoard extends CachingBoard {
  static final String TOPOLOGY_MAP = "quorumkv.topology";
  static final String APPLIED_MAP = "quorumkv.applied";
  static final String TRANSFERS_MAP = "quorumkv.transfers";
  static final String CLUSTER_MAP = "quorumkv.cluster";
  static final String CLUSTER_ID_KEY = "id";
  private static final int MAX_CLAIM_ATTEMPTS = 3;
  static final String KEY = "topology";
  static final String WORKER_POOL = "quorumkv-topology-board";

  private final HazelcastMembership membership;
  private final WorkerExecutor worker;
  private final NodeUrl self;
  /** Null without a cluster secret. */
  private final HazelcastSeal seal;
  private final BoardRejections rejections;
  /** The topology in force on this node, which says who may write one; null until it is agreed. */
  private volatile Topology inForce;
  private volatile IMap<String, Object> topology;
  private volatile IMap<String, Object> appliedMap;
  private volatile IMap<String, Object> transfersMap;
  private volatile IMap<String, Object> clusterMap;

  /**
   * @param clusterSecret the conf's {@code clusterSecret}, the key values are sealed with; null
   *                      for none (values stored bare)
   */
  public HazelcastBoard(Vertx vertx, HazelcastMembership membership, NodeUrl self, String clusterSecret,
                        BoardObserver observer) {
    this.membership = membership;
    this.self = self;
    this.seal = clusterSecret == null ? null : HazelcastSeal.of(clusterSecret);
    this.rejections = new BoardRejections(observer);
    // One thread: the board's calls run in the order they were made.
    this.worker = vertx.createSharedWorkerExecutor(WORKER_POOL, 1);
  }

  /**
   * Follows the maps of this node's Hazelcast member, and of each member built again after another
   * shut it down: the nodes then put the topology and their reports back ({@link ClusterTopology#reconcile}).
   */
  @Override
  public Future<Void> start() {
    membership.onRebuilt(rebuilt -> worker.executeBlocking(() -> attach(rebuilt)));
    return worker.executeBlocking(() -> attach(membership.member()));
  }

  private Void attach(HazelcastInstance hazelcast) {
    topology = hazelcast.getMap(TOPOLOGY_MAP);
    appliedMap = hazelcast.getMap(APPLIED_MAP);
    transfersMap = hazelcast.getMap(TRANSFERS_MAP);
    clusterMap = hazelcast.getMap(CLUSTER_MAP);
    topology.addEntryListener(new EntryFollower((key, value) -> {
      String text = openTopology(key, value);
      if (text != null) {
        heardTopology(text);
      }
    }), true);
    appliedMap.addEntryListener(new EntryFollower(this::heardAppliedValue), true);
    transfersMap.addEntryListener(new EntryFollower(this::heardTransferValue), true);
    appliedMap.forEach(this::heardAppliedValue);
    transfersMap.forEach(this::heardTransferValue);
    return null;
  }

  @Override
  public void inForce(Topology topology) {
    inForce = topology;
  }

  @Override
  public Future<String> read() {
    return bounded(worker.executeBlocking(() -> {
      Object stored = topology.get(KEY);
      if (stored == null) {
        return null;
      }
      String text = openTopology(KEY, stored);
      if (text == null) {
        throw new UnverifiedTopologyException();
      }
      return text;
    }));
  }

  @Override
  public Future<Boolean> compareAndSet(String expected, String next) {
    // A timed-out compare-and-set may still land: the caller reads the board again either way.
    return bounded(worker.executeBlocking(() -> {
      if (expected == null) {
        return topology.putIfAbsent(KEY, stored(TOPOLOGY_MAP, KEY, next)) == null;
      }
      if (seal == null) {
        return topology.replace(KEY, expected, next);
      }
      // The stored value is the one read if its text is: replacing exactly those bytes is the compare-and-set.
      Object stored = topology.get(KEY);
      HazelcastSeal.Opened opened = stored == null ? null : seal.open(TOPOLOGY_MAP, KEY, stored);
      return opened != null && opened.value().equals(expected)
          && topology.replace(KEY, stored, seal.seal(TOPOLOGY_MAP, KEY, self, next));
    }));
  }

  @Override
  public Future<Boolean> restore(String text) {
    return bounded(worker.executeBlocking(() -> {
      Object stored = topology.get(KEY);
      if (stored == null) {
        return topology.putIfAbsent(KEY, stored(TOPOLOGY_MAP, KEY, text)) == null;
      }
      if (openTopology(KEY, stored) != null) {
        // A topology this node takes is there now: the caller reads it at its next look.
        return false;
      }
      // Exactly the rejected bytes: a value written meanwhile (a node's change) is never overwritten.
      return topology.replace(KEY, stored, stored(TOPOLOGY_MAP, KEY, text));
    }));
  }

  /**
   * The id written first wins; one that does not verify is replaced, those exact bytes, as
   * {@link #restore} does, and fails the claim if it keeps coming back (the caller claims again later).
   */
  @Override
  public Future<String> claimClusterId(String candidate) {
    return bounded(worker.executeBlocking(() -> {
      Object mine = stored(CLUSTER_MAP, CLUSTER_ID_KEY, candidate);
      for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
        Object stored = clusterMap.putIfAbsent(CLUSTER_ID_KEY, mine);
        if (stored == null) {
          return candidate;
        }
        String id = seal == null ? (String) stored : openValue(CLUSTER_MAP, CLUSTER_ID_KEY, stored);
        if (id != null) {
          return id;
        }
        if (clusterMap.replace(CLUSTER_ID_KEY, stored, mine)) {
          return candidate;
        }
      }
      throw new TopologyException("the cluster id on the board does not verify and keeps coming back (see the log)");
    }));
  }

  /** Every board call fails after {@link HazelcastMembership#CALL_TIMEOUT_MS}, so no step of a change waits on a member that died. */
  private static <T> Future<T> bounded(Future<T> call) {
    return call.timeout(HazelcastMembership.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public Future<Void> publishApplied(NodeUrl node, long epoch) {
    // Epochs only grow: whichever report runs last on the worker sends the highest one applied.
    heardApplied(node, epoch);
    return bounded(worker.executeBlocking(() -> {
      long highest = heardApplied(node, epoch);
      String key = node.toString();
      return appliedMap.put(key, seal == null ? (Object) highest : stored(APPLIED_MAP, key, Long.toString(highest)));
    })).mapEmpty();
  }

  @Override
  public void publishTransfer(String id, JsonObject progress) {
    heardTransfer(id, progress);
    worker.executeBlocking(() -> transfersMap.put(id, stored(TRANSFERS_MAP, id, progress.encode())));
  }

  /** What this node stores for a value: sealed with a secret, else the value itself. */
  private Object stored(String map, String key, String value) {
    return seal == null ? value : seal.seal(map, key, self, value);
  }

  /**
   * The topology's text in a stored value, or null when this node does not take it (rejected:
   * counted and logged). Without a secret, the stored text as it is.
   */
  private String openTopology(String key, Object stored) {
    if (seal == null) {
      return (String) stored;
    }
    HazelcastSeal.Opened opened = open(TOPOLOGY_MAP, key, stored);
    if (opened == null) {
      return null;
    }
    Topology current = inForce;
    Topology next;
    try {
      // Only the form and the writer are checked here: the factor a value without one gets does not matter.
      next = Topology.fromJson(opened.value(), current == null ? 1 : current.replicationFactor());
    } catch (IllegalArgumentException e) {
      return rejected(TOPOLOGY_MAP, key, stored, BoardRejections.Reason.FORM, e.getMessage());
    }
    if (current != null && !current.letsWrite(opened.writer(), next)) {
      return rejected(TOPOLOGY_MAP, key, stored, BoardRejections.Reason.WRITER, "written by " + opened.writer()
          + ", not a node of epoch " + current.epoch() + " nor the joiner of epoch " + next.epoch());
    }
    rejections.accepted(TOPOLOGY_MAP, key);
    return opened.value();
  }

  private void heardAppliedValue(String key, Object stored) {
    if (seal == null) {
      heardApplied(NodeUrl.parse("applied", key), (Long) stored);
      return;
    }
    HazelcastSeal.Opened opened = open(APPLIED_MAP, key, stored);
    if (opened == null) {
      return;
    }
    if (!opened.writer().toString().equals(key)) {
      rejected(APPLIED_MAP, key, stored, BoardRejections.Reason.WRITER, "a report about " + key + " written by "
          + opened.writer());
      return;
    }
    long epoch;
    try {
      epoch = Long.parseLong(opened.value());
    } catch (NumberFormatException e) {
      rejected(APPLIED_MAP, key, stored, BoardRejections.Reason.FORM, "not an epoch");
      return;
    }
    rejections.accepted(APPLIED_MAP, key);
    heardApplied(opened.writer(), epoch);
  }

  private void heardTransferValue(String id, Object stored) {
    if (seal == null) {
      heardTransfer(id, new JsonObject((String) stored));
      return;
    }
    HazelcastSeal.Opened opened = open(TRANSFERS_MAP, id, stored);
    if (opened == null) {
      return;
    }
    JsonObject progress;
    try {
      progress = new JsonObject(opened.value());
      NodeUrl from = NodeUrl.parse("from", progress.getString("from"));
      NodeUrl to = NodeUrl.parse("to", progress.getString("to"));
      if (!TransferProgress.id(progress.getLong("epoch"), from, to).equals(id)) {
        rejected(TRANSFERS_MAP, id, stored, BoardRejections.Reason.FORM, "the progress of another transfer");
        return;
      }
      if (!to.equals(opened.writer())) {
        rejected(TRANSFERS_MAP, id, stored, BoardRejections.Reason.WRITER, "the progress of a transfer to " + to
            + " written by " + opened.writer());
        return;
      }
    } catch (RuntimeException e) {
      rejected(TRANSFERS_MAP, id, stored, BoardRejections.Reason.FORM, "not a transfer's progress");
      return;
    }
    rejections.accepted(TRANSFERS_MAP, id);
    heardTransfer(id, progress);
  }

  /** A sealed value any node of the cluster may write, or null when it does not verify (then rejected). */
  private String openValue(String map, String key, Object stored) {
    HazelcastSeal.Opened opened = open(map, key, stored);
    if (opened == null) {
      return null;
    }
    rejections.accepted(map, key);
    return opened.value();
  }

  /** The verified value and writer, or null when it does not verify (then rejected). */
  private HazelcastSeal.Opened open(String map, String key, Object stored) {
    HazelcastSeal.Opened opened = seal.open(map, key, stored);
    if (opened == null) {
      rejected(map, key, stored, BoardRejections.Reason.MAC, null);
    }
    return opened;
  }

  private String rejected(String map, String key, Object stored, BoardRejections.Reason reason, String detail) {
    rejections.reject(map, key, Objects.requireNonNull(stored), reason, detail);
    return null;
  }
}
