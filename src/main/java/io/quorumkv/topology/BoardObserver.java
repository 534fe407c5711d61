package io.quorumkv.topology;

/**
 * What the board tells the node's metrics about values it ignored (implemented by the metrics, so
 * that this package imports no metrics library). Called on a thread it must not block.
 */
public interface BoardObserver {
  BoardObserver NONE = (map, reason) -> { };

  /**
   * A value written to {@code map} was ignored, for {@code reason}: {@code mac}, it does not
   * verify (no seal, or one made without this cluster's secret, or for another key); {@code writer},
   * it verifies but its writer may not write it (not a member of the topology in force, or not
   * the node the entry belongs to); {@code form}, it verifies but does not hold what the entry
   * should (not a topology, an epoch, or the progress of the transfer its key names).
   */
  void boardValueRejected(String map, String reason);
}
