package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which down nodes a streaming change waits for, and the way out it names: remove when the only
 * one is the joining or leaving node, abort when it is another node the change needs.
 */
class StuckChangeTest {
  private static final List<NodeUrl> THREE = List.of(node(1), node(2), node(3));
  private static final NodeUrl JOINER = node(4);

  @Test
  void aDeadSourceOfAJoinIsNamedWithAbortAsTheWayOut() {
    Topology joining = Topology.initial(THREE).withJoining(JOINER);
    StuckChange stuck = StuckChange.of(joining, Map.of(), down(node(3))).orElseThrow();
    assertEquals(List.of(node(3)), stuck.down());
    assertEquals(StuckChange.WayOut.ABORT, stuck.wayOut());
    assertEquals(joining.change(), stuck.change());
  }

  @Test
  void aDeadJoinerAloneIsRemovedAndWithASourceAborted() {
    Topology joining = Topology.initial(THREE).withJoining(JOINER);
    assertEquals(StuckChange.WayOut.REMOVE, StuckChange.of(joining, Map.of(), down(JOINER)).orElseThrow().wayOut());
    StuckChange both = StuckChange.of(joining, Map.of(), down(JOINER, node(1))).orElseThrow();
    assertEquals(List.of(node(1), JOINER), both.down());
    assertEquals(StuckChange.WayOut.ABORT, both.wayOut());
  }

  @Test
  void aDeadReceiverOfALeaveIsNamedWithAbortAsTheWayOut() {
    Topology leaving = Topology.initial(THREE).withLeaving(node(1), Topology.Kind.LEAVE);
    StuckChange stuck = StuckChange.of(leaving, Map.of(), down(node(2))).orElseThrow();
    assertEquals(List.of(node(2)), stuck.down());
    assertEquals(StuckChange.WayOut.ABORT, stuck.wayOut());
  }

  @Test
  void aDoneTransferWaitsForNobodyNorDoesAStableOrCutOverTopology() {
    Topology joining = Topology.initial(THREE).withJoining(JOINER);
    Map<String, JsonObject> transfers = new HashMap<>();
    transfers.put(TransferProgress.id(joining.epoch(), node(3), JOINER), TransferProgress.of(joining.epoch(), node(3),
        JOINER, TransferProgress.State.DONE, 10, 100, 0, 0, null));
    assertEquals(Optional.empty(), StuckChange.of(joining, transfers, down(node(3))));
    assertEquals(Optional.empty(), StuckChange.of(joining, Map.of(), down()));
    assertTrue(StuckChange.of(Topology.initial(THREE), Map.of(), down(node(3))).isEmpty());
    assertTrue(StuckChange.of(joining.cutOver(), Map.of(), down(node(3))).isEmpty());
  }

  @Test
  void theNodeARemovalTakesAwayIsNotWaitedFor() {
    Topology removing = Topology.initial(THREE).withLeaving(node(1), Topology.Kind.REMOVE);
    assertTrue(StuckChange.of(removing, Map.of(), down(node(1))).isEmpty());
    assertEquals(StuckChange.WayOut.ABORT, StuckChange.of(removing, Map.of(), down(node(1), node(2))).orElseThrow()
        .wayOut());
  }

  private static java.util.function.Predicate<NodeUrl> down(NodeUrl... nodes) {
    Set<NodeUrl> dead = Set.of(nodes);
    return node -> !dead.contains(node);
  }

  private static NodeUrl node(int i) {
    return NodeUrl.parse("test", "http://127.0.0.1:" + (9000 + i));
  }
}
