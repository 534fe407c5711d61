package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.Objects;

/** The {@link TopologyBoard} of a node without membership: in memory, itself its only reader. */
final class LocalBoard extends CachingBoard {
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
    heardTopology(next);
    return Future.succeededFuture(true);
  }

  @Override
  public Future<String> claimClusterId(String candidate) {
    return Future.succeededFuture(candidate);
  }

  /** Nothing but this node writes here: there is never a value to put back. */
  @Override
  public Future<Boolean> restore(String text) {
    return Future.succeededFuture(false);
  }

  @Override
  public Future<Void> publishApplied(NodeUrl node, long epoch) {
    heardApplied(node, epoch);
    return Future.succeededFuture();
  }

  @Override
  public void publishTransfer(String id, JsonObject progress) {
    heardTransfer(id, progress);
  }
}
