package io.quorumkv.topology;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.quorumkv.cluster.HazelcastMembership;
import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@link TopologyBoard} on Hazelcast maps, replicated across the members: the topology under
 * one key, changed by Hazelcast's atomic replace; the applied epochs and transfer progress under
 * each node's and transfer's key, followed by entry listeners into local caches. The map calls,
 * which may block, run one at a time on a worker thread of their own, never on an event loop.
 */
public final class HazelcastBoard extends CachingBoard {
  static final String TOPOLOGY_MAP = "quorumkv.topology";
  static final String APPLIED_MAP = "quorumkv.applied";
  static final String TRANSFERS_MAP = "quorumkv.transfers";
  private static final String KEY = "topology";
  static final String WORKER_POOL = "quorumkv-topology-board";
  /** The longest any board call may take, its wait behind earlier calls included. */

  private final HazelcastInstance hazelcast;
  private final WorkerExecutor worker;
  private IMap<String, String> topology;
  private IMap<String, Long> appliedMap;
  private IMap<String, String> transfersMap;

  public HazelcastBoard(Vertx vertx, HazelcastInstance hazelcast) {
    this.hazelcast = hazelcast;
    // One thread: the board's calls run in the order they were made.
    this.worker = vertx.createSharedWorkerExecutor(WORKER_POOL, 1);
  }

  @Override
  public Future<Void> start() {
    return worker.executeBlocking(() -> {
      topology = hazelcast.getMap(TOPOLOGY_MAP);
      appliedMap = hazelcast.getMap(APPLIED_MAP);
      transfersMap = hazelcast.getMap(TRANSFERS_MAP);
      topology.addEntryListener(new Follower<String>(event -> heardTopology(event.getValue())), true);
      appliedMap.addEntryListener(new Follower<Long>(event -> heardApplied(NodeUrl.parse("applied", event.getKey()),
          event.getValue())), true);
      transfersMap.addEntryListener(new Follower<String>(event -> heardTransfer(event.getKey(),
          new JsonObject(event.getValue()))), true);
      appliedMap.forEach((node, epoch) -> heardApplied(NodeUrl.parse("applied", node), epoch));
      transfersMap.forEach((id, progress) -> heardTransfer(id, new JsonObject(progress)));
      return null;
    });
  }

  @Override
  public Future<String> read() {
    return bounded(worker.executeBlocking(() -> topology.get(KEY)));
  }

  @Override
  public Future<Boolean> compareAndSet(String expected, String next) {
    // A timed-out compare-and-set may still land: the caller reads the board again either way.
    return bounded(worker.executeBlocking(() -> expected == null
        ? topology.putIfAbsent(KEY, next) == null
        : topology.replace(KEY, expected, next)));
  }

  /** Every board call fails after {@link HazelcastMembership#CALL_TIMEOUT_MS}, so no step of a change waits on a member that died. */
  private static <T> Future<T> bounded(Future<T> call) {
    return call.timeout(HazelcastMembership.CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public Future<Void> publishApplied(NodeUrl node, long epoch) {
    // Epochs only grow: whichever report runs last on the worker sends the highest one applied.
    heardApplied(node, epoch);
    return bounded(worker.executeBlocking(() -> appliedMap.put(node.toString(), heardApplied(node, epoch)))).mapEmpty();
  }

  @Override
  public void publishTransfer(String id, JsonObject progress) {
    heardTransfer(id, progress);
    worker.executeBlocking(() -> transfersMap.put(id, progress.encode()));
  }

  /** Passes every added or updated entry to one handler, on a Hazelcast event thread. */
  private record Follower<V>(Consumer<EntryEvent<String, V>> handler)
      implements EntryAddedListener<String, V>, EntryUpdatedListener<String, V> {
    @Override
    public void entryAdded(EntryEvent<String, V> event) {
      handler.accept(event);
    }

    @Override
    public void entryUpdated(EntryEvent<String, V> event) {
      handler.accept(event);
    }
  }
}
