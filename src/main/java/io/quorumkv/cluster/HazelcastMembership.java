package io.quorumkv.cluster;

import com.hazelcast.cluster.ClusterState;
import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.map.IMap;
import io.quorumkv.config.HazelcastConfig;
import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Membership from a Hazelcast member this node owns: a node is alive while a current member of the
 * group proves to be it ({@link MemberProofs}). Liveness is keyed by member: a member that claims
 * a node's url without the proof changes nothing, and one that leaves takes only its own claim
 * with it, never the node's.
 *
 * <p>Other members can also act on the whole group. Once a second this node checks the cluster
 * state, and sets one that no node sets (PASSIVE, FROZEN, NO_MIGRATION) back to ACTIVE when it
 * lasted two checks, so that restarted nodes can join, and a member of this node that another member shut down (a cluster-wide shutdown) is built
 * again and rejoins: failure detection never stays off. Every blocking Hazelcast call runs on a
 * worker thread of its own, never on an event loop nor a Hazelcast event thread.
 */
public final class HazelcastMembership implements LiveNodes {
  private static final System.Logger LOG = System.getLogger(HazelcastMembership.class.getName());
  /** How long a Hazelcast operation (a map call) may take before it fails. */
  public static final long CALL_TIMEOUT_MS = 10_000;
  static final long CHECK_EVERY_MS = 1_000;
  /** A rebuild that failed for another reason than the cluster state is tried again after this. */
  static final long REBUILD_PAUSE_MS = 5_000;
  /** Every node of a group shut down rebuilds at once: spread over this, most join a member already up. */
  static final long REBUILD_SPREAD_MS = 3_000;
  private static final String WORKER_POOL = "quorumkv-membership";

  private final Vertx vertx;
  private final NodeUrl self;
  private final HazelcastConfig conf;
  private final MemberProofs proofs;
  private final MembershipObserver observer;
  private final WorkerExecutor worker;
  private final List<Consumer<NodeUrl>> joinListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<HazelcastInstance>> rebuildListeners = new CopyOnWriteArrayList<>();
  /** The current members of the group, as the current Hazelcast member last reported them. Guarded by this. */
  private Set<UUID> present = Set.of();
  /** The node each member proved to be. Guarded by this. */
  private final Map<UUID, NodeUrl> proven = new HashMap<>();
  private volatile Set<NodeUrl> alive;
  private volatile HazelcastInstance member;
  private volatile boolean leaving;
  private volatile boolean checking;
  /** The cluster state at the last check; only the membership's worker thread touches it. */
  private ClusterState lastState = ClusterState.ACTIVE;
  private long checkTimer = -1;

  private HazelcastMembership(Vertx vertx, NodeUrl self, HazelcastConfig conf, String clusterSecret,
                              MembershipObserver observer) {
    this.vertx = vertx;
    this.self = self;
    this.conf = conf;
    this.proofs = new MemberProofs(clusterSecret, self, observer);
    this.observer = observer;
    this.alive = Set.of(self);
    // One thread: a join blocks it for seconds, and the checks run in order after it.
    this.worker = vertx.createSharedWorkerExecutor(WORKER_POOL, 1);
  }

  /**
   * Joins the group (a join refused for the cluster state is tried again, {@link JoinRetry}) and
   * follows it; {@code clusterSecret} seals this node's proof, null for none.
   */
  public static Future<HazelcastMembership> join(Vertx vertx, NodeUrl self, HazelcastConfig conf,
                                                 String clusterSecret, MembershipObserver observer) {
    HazelcastMembership membership = new HazelcastMembership(vertx, self, conf, clusterSecret, observer);
    return JoinRetry.standard().join(membership::newMember).compose(joined -> membership.attach(joined)
        .recover(failed -> membership.worker.executeBlocking(() -> {
          // A member that joined but could not be followed leaves again (and is not built again):
          // its threads would keep the JVM up.
          membership.leaving = true;
          joined.shutdown();
          return joined;
        }, false).transform(left -> Future.failedFuture(failed)))).map(joined -> {
      membership.checkTimer = vertx.setPeriodic(CHECK_EVERY_MS, id -> membership.check());
      return membership;
    });
  }

  /** This node's Hazelcast member; another one after a {@link #onRebuilt rebuild}. */
  public HazelcastInstance member() {
    return member;
  }

  /** Calls the listener, on a worker thread, with each member built again after another member shut one down. */
  public void onRebuilt(Consumer<HazelcastInstance> listener) {
    rebuildListeners.add(listener);
  }

  /** Leaves the group: this node's member shuts down, and is not built again. */
  public Future<Void> leave() {
    leaving = true;
    vertx.cancelTimer(checkTimer);
    HazelcastInstance last = member;
    // Not behind a check on the membership's thread, which may wait on a member that is leaving too.
    return vertx.executeBlocking(() -> {
      last.shutdown();
      return null;
    }, false);
  }

  @Override
  public Runnable onJoined(Consumer<NodeUrl> listener) {
    joinListeners.add(listener);
    return () -> joinListeners.remove(listener);
  }

  @Override
  public boolean isAlive(NodeUrl node) {
    return alive.contains(node);
  }

  @Override
  public Set<NodeUrl> alive() {
    return new HashSet<>(alive);
  }

  private Future<HazelcastInstance> newMember() {
    JoinRaceLogFilter.Window joining = JoinRaceLogFilter.open();
    return worker.executeBlocking(() -> Hazelcast.newHazelcastInstance(MemberSettings.of(self, conf)), false)
        .onComplete(joined -> joining.close());
  }

  /** Follows the new member's group and proves this node on it. */
  private Future<HazelcastInstance> attach(HazelcastInstance joined) {
    member = joined;
    joined.getLifecycleService().addLifecycleListener(event -> lifecycleChanged(joined, event));
    return worker.executeBlocking(() -> {
      IMap<String, Object> map = joined.getMap(MemberProofs.MAP);
      map.addEntryListener(new EntryFollower((key, value) -> heardProof(joined, key, value)), true);
      joined.getCluster().addMembershipListener(new Follower(joined, map));
      map.forEach((key, value) -> heardProof(joined, key, value));
      proofs.publish(map, joined.getCluster().getLocalMember().getUuid());
      return joined;
    }, false);
  }

  private void lifecycleChanged(HazelcastInstance changed, LifecycleEvent event) {
    if (event.getState() == LifecycleEvent.LifecycleState.SHUTDOWN && changed == member && !leaving) {
      LOG.log(System.Logger.Level.WARNING, "this node's Hazelcast member was shut down, and not by this node"
          + " (another member of the group shut the group down?): building it again");
      vertx.setTimer(1 + ThreadLocalRandom.current().nextLong(REBUILD_SPREAD_MS), t -> rebuild());
    }
  }

  private void rebuild() {
    JoinRetry.standard().join(this::newMember).compose(rebuilt -> {
      if (leaving) {
        return worker.executeBlocking(() -> {
          rebuilt.shutdown();
          return rebuilt;
        }, false);
      }
      return attach(rebuilt).onSuccess(attached -> {
        LOG.log(System.Logger.Level.INFO, "this node's Hazelcast member is back in the group");
        observer.membershipDefended("rebuilt");
        rebuildListeners.forEach(listener -> listener.accept(attached));
      });
    }).onFailure(e -> {
      LOG.log(System.Logger.Level.WARNING, "cannot build this node's Hazelcast member again: " + e.getMessage()
          + "; trying again in " + REBUILD_PAUSE_MS / 1_000 + " s");
      if (!leaving) {
        vertx.setTimer(REBUILD_PAUSE_MS, t -> rebuild());
      }
    });
  }

  /** Once a second: the cluster state set back, this node's proof in place, any missed proof read. */
  private void check() {
    HazelcastInstance current = member;
    if (leaving || checking || !current.getLifecycleService().isRunning()) {
      return;
    }
    checking = true;
    worker.executeBlocking(() -> {
      undoClusterState(current);
      IMap<String, Object> map = current.getMap(MemberProofs.MAP);
      proofs.publish(map, current.getCluster().getLocalMember().getUuid());
      Set<String> unproven = unproven();
      if (!unproven.isEmpty()) {
        map.getAll(unproven).forEach((key, value) -> heardProof(current, key, value));
      }
      return null;
    }, false).onComplete(done -> {
      checking = false;
      if (done.failed() && current.getLifecycleService().isRunning()) {
        LOG.log(System.Logger.Level.DEBUG, "membership check failed: " + done.cause());
      }
    });
  }

  /**
   * No node sets a cluster state, and Hazelcast sets {@code FROZEN} only for the moment of a merge
   * after a split (on the side that merges, which then rejoins): one other than ACTIVE at two checks
   * in a row comes from another member of the group, and is set back.
   */
  private void undoClusterState(HazelcastInstance current) {
    ClusterState state = current.getCluster().getClusterState();
    ClusterState before = lastState;
    lastState = state;
    if (state == ClusterState.ACTIVE || state == ClusterState.IN_TRANSITION || state != before) {
      return;
    }
    LOG.log(System.Logger.Level.WARNING, "the Hazelcast cluster state is " + state + ", which no node sets"
        + " (another member of the group set it): setting it back to ACTIVE");
    observer.membershipDefended("state");
    current.getCluster().changeClusterState(ClusterState.ACTIVE);
  }

  private synchronized Set<String> unproven() {
    Set<String> missing = new HashSet<>();
    present.forEach(uuid -> {
      if (!proven.containsKey(uuid)) {
        missing.add(uuid.toString());
      }
    });
    return missing;
  }

  private void heardProof(HazelcastInstance from, String key, Object value) {
    if (from != member) {
      return;
    }
    UUID uuid;
    try {
      uuid = UUID.fromString(key);
    } catch (IllegalArgumentException notAMember) {
      observer.membershipDefended("proof");
      return;
    }
    NodeUrl node = proofs.verify(key, value);
    if (node != null) {
      synchronized (this) {
        proven.put(uuid, node);
      }
      recompute();
    }
  }

  private void membersChanged(HazelcastInstance from, Set<Member> members) {
    if (from != member) {
      return;
    }
    Set<UUID> now = new HashSet<>();
    members.forEach(m -> now.add(m.getUuid()));
    synchronized (this) {
      present = now;
      // A member that merged back after a split may come with a new UUID and no removal of its old one.
      proven.keySet().retainAll(now);
    }
    recompute();
  }

  private void recompute() {
    Set<NodeUrl> joined = new HashSet<>();
    synchronized (this) {
      Set<NodeUrl> next = new HashSet<>();
      next.add(self);
      present.forEach(uuid -> {
        NodeUrl node = proven.get(uuid);
        if (node != null) {
          next.add(node);
        }
      });
      next.forEach(node -> {
        if (!alive.contains(node)) {
          joined.add(node);
        }
      });
      alive = Set.copyOf(next);
    }
    joined.forEach(node -> joinListeners.forEach(listener -> listener.accept(node)));
  }

  /** The members of one Hazelcast member's group; a departed member's proof is taken off the map. */
  private final class Follower implements InitialMembershipListener {
    private final HazelcastInstance from;
    private final IMap<String, Object> map;

    Follower(HazelcastInstance from, IMap<String, Object> map) {
      this.from = from;
      this.map = map;
    }

    @Override
    public void init(InitialMembershipEvent event) {
      membersChanged(from, event.getMembers());
    }

    @Override
    public void memberAdded(MembershipEvent event) {
      membersChanged(from, event.getMembers());
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
      membersChanged(from, event.getMembers());
      if (from.getLifecycleService().isRunning()) {
        map.removeAsync(event.getMember().getUuid().toString());
      }
    }
  }
}
