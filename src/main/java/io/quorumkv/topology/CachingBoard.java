package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What every {@link TopologyBoard} keeps on this node: the topology listeners, and the applied
 * epochs and transfer progress as last heard (read without asking anyone). Subclasses say how
 * news reaches the other nodes and feed what they hear back through the {@code heard} methods.
 */
public abstract class CachingBoard implements TopologyBoard {
  private final Map<NodeUrl, Long> applied = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> transfers = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

  @Override
  public void onTopology(Consumer<String> listener) {
    listeners.add(listener);
  }

  /** Tells the listeners of a new topology text. */
  protected void heardTopology(String text) {
    listeners.forEach(listener -> listener.accept(text));
  }

  /** Keeps the higher of the epochs heard for the node (epochs only grow); returns it. */
  protected long heardApplied(NodeUrl node, long epoch) {
    return applied.merge(node, epoch, Math::max);
  }

  protected void heardTransfer(String id, JsonObject progress) {
    transfers.put(id, progress);
  }

  @Override
  public Map<NodeUrl, Long> applied() {
    return Map.copyOf(applied);
  }

  @Override
  public Map<String, JsonObject> transfers() {
    return Map.copyOf(transfers);
  }
}
