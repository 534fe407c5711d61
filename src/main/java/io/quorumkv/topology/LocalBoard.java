package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** The {@link TopologyBoard} of a node without membership: in memory, itself its only reader. */
final class LocalBoard implements TopologyBoard {
  private final Map<NodeUrl, Long> applied = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> transfers = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private String topology;

  @Override
  public boolean shared() {
    return false;
  }

  @Override
  public Future<Void> start() {
    return Future.succeededFuture();
  }

  @Override
  public synchronized Future<String> read() {
    return Future.succeededFuture(topology);
  }

  @Override
  public Future<Boolean> compareAndSet(String expected, String next) {
    synchronized (this) {
      if (!Objects.equals(topology, expected)) {
        return Future.succeededFuture(false);
      }
      topology = next;
    }
    listeners.forEach(listener -> listener.accept(next));
    return Future.succeededFuture(true);
  }

  @Override
  public void onTopology(Consumer<String> listener) {
    listeners.add(listener);
  }

  @Override
  public void publishApplied(NodeUrl node, long epoch) {
    applied.merge(node, epoch, Math::max);
  }

  @Override
  public Map<NodeUrl, Long> applied() {
    return Map.copyOf(applied);
  }

  @Override
  public void publishTransfer(String id, JsonObject progress) {
    transfers.put(id, progress);
  }

  @Override
  public Map<String, JsonObject> transfers() {
    return Map.copyOf(transfers);
  }
}
