package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.storage.Record;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The placement rules of a topology change, checked against {@link Rendezvous} over the old and
 * the new node lists for many random keys and every replica count: who sends which key to whom
 * while streaming, which sets a write must reach and which replicas a read asks at each step,
 * the transitions allowed, and the JSON form every node persists.
 */
class TopologyTest {
  private static final int KEYS = 20_000;
  private static final int[] REPLICA_COUNTS = {1, 2, 3, Record.EVERY_NODE};
  private static final long SEED = new Random().nextLong();
  private static final List<byte[]> RANDOM_KEYS = randomKeys(KEYS, SEED);

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 4, 5})
  void aJoinerTakesEachKeyItGainsFromTheOneNodeItDisplaces(int size) {
    List<NodeUrl> old = nodes(size);
    NodeUrl joiner = node(size);
    List<NodeUrl> after = plus(old, joiner);
    Topology streaming = Topology.initial(old).withJoining(joiner);
    assertEquals(List.of(joiner), streaming.receivers());
    assertEquals(old, streaming.sourcesFor(joiner));
    Rendezvous before = new Rendezvous(old);
    Rendezvous target = new Rendezvous(after);
    for (int replicas : REPLICA_COUNTS) {
      int gained = 0;
      for (byte[] key : RANDOM_KEYS) {
        List<NodeUrl> oldHome = home(before, key, replicas);
        List<NodeUrl> newHome = home(target, key, replicas);
        List<NodeUrl> senders = after.stream().filter(source -> streaming.sends(source, joiner, key, replicas)).toList();
        Supplier<String> where = () -> where(key, replicas) + ", old home " + oldHome + ", new home " + newHome;
        if (!newHome.contains(joiner)) {
          assertEquals(List.of(), senders, () -> "nothing goes to a joiner outside the new home set: " + where.get());
          continue;
        }
        gained++;
        assertEquals(1, senders.size(), () -> "exactly one source sends the key: " + senders + ", " + where.get());
        NodeUrl sender = senders.get(0);
        assertTrue(oldHome.contains(sender), () -> sender + " sends but holds no copy: " + where.get());
        Set<NodeUrl> displaced = minus(oldHome, newHome);
        assertTrue(displaced.size() <= 1, () -> "a joiner displaces at most one node: " + where.get());
        if (!displaced.isEmpty()) {
          assertEquals(displaced, Set.of(sender), () -> "the displaced node sends: " + where.get());
        }
        Set<NodeUrl> copiesAfter = minus(oldHome, displaced);
        copiesAfter.add(joiner);
        assertEquals(copiesAfter, Set.copyOf(newHome),
            () -> "the copies are the old ones, the displaced node's moved to the joiner: " + where.get());
      }
      assertTrue(gained > 0, "the joiner gained no key at " + replicas + " replicas");
    }
    assertNoOtherReceiver(streaming, old, after);
    Topology cutover = streaming.cutOver();
    for (byte[] key : RANDOM_KEYS.subList(0, 100)) {
      for (NodeUrl source : after) {
        assertFalse(cutover.sends(source, joiner, key, 1), "nothing is sent after the cutover");
      }
    }
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 4, 5})
  void aLeaverAloneSendsEachKeyToTheNodeThatGainsIt(int size) {
    List<NodeUrl> old = nodes(size);
    NodeUrl leaver = old.get(size / 2);
    List<NodeUrl> staying = without(old, leaver);
    Topology streaming = Topology.initial(old).withLeaving(leaver, Topology.Kind.LEAVE);
    assertEquals(staying, streaming.receivers());
    for (NodeUrl receiver : staying) {
      assertEquals(List.of(leaver), streaming.sourcesFor(receiver));
    }
    Rendezvous before = new Rendezvous(old);
    Rendezvous target = new Rendezvous(staying);
    for (int replicas : REPLICA_COUNTS) {
      int gained = 0;
      for (byte[] key : RANDOM_KEYS) {
        List<NodeUrl> oldHome = home(before, key, replicas);
        List<NodeUrl> newHome = home(target, key, replicas);
        Set<NodeUrl> gainers = minus(newHome, oldHome);
        Supplier<String> where = () -> where(key, replicas) + ", old home " + oldHome + ", new home " + newHome;
        assertTrue(gainers.size() <= 1, () -> "at most one node gains a key: " + where.get());
        for (NodeUrl receiver : old) {
          for (NodeUrl source : old) {
            boolean expected = source.equals(leaver) && gainers.contains(receiver);
            assertEquals(expected, streaming.sends(source, receiver, key, replicas),
                () -> source + " sends to " + receiver + "? " + where.get());
          }
        }
        if (!gainers.isEmpty()) {
          gained++;
          Set<NodeUrl> copiesAfter = minus(oldHome, Set.of(leaver));
          copiesAfter.addAll(gainers);
          assertEquals(copiesAfter, Set.copyOf(newHome),
              () -> "the copies are the old ones, the leaver's moved to the gainer: " + where.get());
        }
      }
      if (replicas < size) {
        assertTrue(gained > 0, "no node gained a key at " + replicas + " replicas");
      }
    }
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 4, 5})
  void aRemovalHasEveryRemainingOwnerSendToTheNodeThatGainsTheKey(int size) {
    List<NodeUrl> old = nodes(size);
    NodeUrl removed = old.get(0);
    List<NodeUrl> staying = without(old, removed);
    Topology streaming = Topology.initial(old).withLeaving(removed, Topology.Kind.REMOVE);
    assertEquals(staying, streaming.receivers());
    for (NodeUrl receiver : staying) {
      assertEquals(without(staying, receiver), streaming.sourcesFor(receiver), "a receiver pulls from every other survivor");
    }
    Rendezvous before = new Rendezvous(old);
    Rendezvous target = new Rendezvous(staying);
    for (int replicas : REPLICA_COUNTS) {
      int sent = 0;
      for (byte[] key : RANDOM_KEYS) {
        List<NodeUrl> oldHome = home(before, key, replicas);
        List<NodeUrl> newHome = home(target, key, replicas);
        Set<NodeUrl> gainers = minus(newHome, oldHome);
        Supplier<String> where = () -> where(key, replicas) + ", old home " + oldHome + ", new home " + newHome;
        assertTrue(gainers.size() <= 1, () -> "at most one node gains a key: " + where.get());
        for (NodeUrl receiver : old) {
          for (NodeUrl source : old) {
            boolean expected = gainers.contains(receiver) && oldHome.contains(source) && !source.equals(removed);
            boolean sends = streaming.sends(source, receiver, key, replicas);
            assertEquals(expected, sends, () -> source + " sends to " + receiver + "? " + where.get());
            if (sends) {
              sent++;
              assertTrue(streaming.sourcesFor(receiver).contains(source),
                  () -> source + " sends to " + receiver + " but is not among its sources: " + where.get());
            }
          }
        }
      }
      if (replicas > 1 && replicas < size) {
        assertTrue(sent > 0, "no survivor sent a key at " + replicas + " replicas");
      }
    }
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 4, 5})
  void aJoinWritesToOldAndNewOwnersAndMovesReadsAtTheCutover(int size) {
    List<NodeUrl> old = nodes(size);
    NodeUrl joiner = node(size);
    List<NodeUrl> after = plus(old, joiner);
    Topology stable = Topology.initial(old);
    Topology streaming = stable.withJoining(joiner);
    Topology cutover = streaming.cutOver();
    Topology settled = cutover.settle();
    assertEquals(size, stable.readSize());
    assertEquals(size, streaming.readSize(), "reads stay with the old owners while streaming");
    assertEquals(size + 1, cutover.readSize());
    assertEquals(size + 1, settled.readSize());
    assertSetsAtEachStep(old, after, stable, streaming, cutover, settled);
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {3, 4, 5})
  void aLeaveWritesToOldAndNewOwnersAndMovesReadsAtTheCutover(int size) {
    List<NodeUrl> old = nodes(size);
    NodeUrl leaver = old.get(size - 1);
    List<NodeUrl> after = without(old, leaver);
    Topology stable = Topology.initial(old);
    Topology streaming = stable.withLeaving(leaver, Topology.Kind.LEAVE);
    Topology cutover = streaming.cutOver();
    Topology settled = cutover.settle();
    assertEquals(size, streaming.readSize(), "the leaver still answers reads while streaming");
    assertEquals(size - 1, cutover.readSize());
    assertEquals(size - 1, settled.readSize());
    assertTrue(cutover.allNodes().contains(leaver), "the leaver still takes writes during the cutover");
    assertFalse(settled.allNodes().contains(leaver));
    assertSetsAtEachStep(old, after, stable, streaming, cutover, settled);
  }

  /** The write sets and read replicas at each step, for every {@code from} up to the old size. */
  private static void assertSetsAtEachStep(List<NodeUrl> old, List<NodeUrl> after, Topology stable,
                                           Topology streaming, Topology cutover, Topology settled) {
    Rendezvous before = new Rendezvous(old);
    Rendezvous target = new Rendezvous(after);
    Set<Integer> froms = new LinkedHashSet<>(List.of(1, 2, 3, old.size()));
    int differing = 0;
    for (byte[] key : RANDOM_KEYS) {
      for (int from : froms) {
        List<NodeUrl> oldHome = home(before, key, from);
        List<NodeUrl> newHome = home(target, key, from);
        String where = where(key, from);
        if (!oldHome.equals(newHome)) {
          differing++;
        }
        assertEquals(List.of(oldHome), stable.writeSets(key, from), where);
        assertSameSets(List.of(oldHome, newHome), streaming.writeSets(key, from), "streaming, " + where);
        assertSameSets(List.of(newHome, oldHome), cutover.writeSets(key, from), "cutover, " + where);
        assertEquals(List.of(newHome), settled.writeSets(key, from), "stable again, " + where);
        assertEquals(oldHome, stable.readReplicas(key, from), where);
        assertEquals(oldHome, streaming.readReplicas(key, from), "streaming reads the old owners, " + where);
        assertEquals(newHome, cutover.readReplicas(key, from), "the cutover reads the new owners, " + where);
        assertEquals(newHome, settled.readReplicas(key, from), "stable again, " + where);
      }
    }
    assertTrue(differing > 0, "no key changed owners");
  }

  /** The same distinct sets, each once, in any order. */
  private static void assertSameSets(List<List<NodeUrl>> expected, List<List<NodeUrl>> actual, String where) {
    Set<List<NodeUrl>> distinct = new HashSet<>(expected);
    assertEquals(distinct, new HashSet<>(actual), where);
    assertEquals(distinct.size(), actual.size(), () -> "a set written twice: " + actual + ", " + where);
  }

  @Test
  void stepsAdvanceTheEpochByOneAndSettleWithoutTheLeaver() {
    List<NodeUrl> three = nodes(3);
    NodeUrl leaver = three.get(1);
    Topology stable = Topology.initial(three);
    assertEquals(1, stable.epoch());
    assertTrue(stable.isStable());
    assertNull(stable.change());

    Topology streaming = stable.withLeaving(leaver, Topology.Kind.LEAVE);
    assertEquals(2, streaming.epoch());
    assertEquals(Topology.Stage.STREAMING, streaming.stage());
    assertEquals(new Topology.Change(Topology.Kind.LEAVE, leaver), streaming.change());
    assertEquals(Topology.State.LEAVING, streaming.members().get(leaver));

    Topology cutover = streaming.cutOver();
    assertEquals(3, cutover.epoch());
    assertEquals(Topology.Stage.CUTOVER, cutover.stage());
    assertFalse(cutover.isMember(leaver));
    assertEquals(streaming.change(), cutover.change());

    Topology settled = cutover.settle();
    assertEquals(4, settled.epoch());
    assertTrue(settled.isStable());
    assertNull(settled.change());
    assertEquals(Map.of(three.get(0), Topology.State.NORMAL, three.get(2), Topology.State.NORMAL), settled.members());
    assertEquals(without(three, leaver), settled.allNodes());
    assertEquals(without(three, leaver), settled.readNodes());

    NodeUrl joiner = node(7);
    Topology joining = settled.withJoining(joiner);
    assertEquals(5, joining.epoch());
    assertEquals(Topology.State.JOINING, joining.members().get(joiner));
    assertFalse(joining.readNodes().contains(joiner), "a joiner answers no reads before the cutover");
    Topology joined = joining.cutOver().settle();
    assertEquals(7, joined.epoch());
    assertEquals(Topology.State.NORMAL, joined.members().get(joiner));
    assertEquals(3, joined.members().size());
    assertTrue(joined.members().values().stream().allMatch(state -> state == Topology.State.NORMAL));
  }

  @Test
  void aSecondChangeIsRefusedNamingTheOneInProgress() {
    List<NodeUrl> three = nodes(3);
    NodeUrl joiner = node(3);
    Topology joining = Topology.initial(three).withJoining(joiner);
    for (Topology during : List.of(joining, joining.cutOver())) {
      String stage = Topology.name(during.stage());
      assertRefused(() -> during.withJoining(node(4)), "already in progress", "join of " + joiner, stage);
      assertRefused(() -> during.withLeaving(three.get(0), Topology.Kind.LEAVE), "already in progress",
          "join of " + joiner, stage);
      assertRefused(() -> during.withLeaving(three.get(0), Topology.Kind.REMOVE), "already in progress",
          "join of " + joiner, stage);
    }
    NodeUrl leaver = three.get(2);
    Topology leaving = Topology.initial(three).withLeaving(leaver, Topology.Kind.LEAVE);
    assertRefused(() -> leaving.withJoining(joiner), "already in progress", "leave of " + leaver);
    assertRefused(() -> leaving.withLeaving(three.get(0), Topology.Kind.LEAVE), "already in progress",
        "leave of " + leaver);
    Topology removing = Topology.initial(three).withLeaving(leaver, Topology.Kind.REMOVE);
    assertRefused(() -> removing.withLeaving(three.get(0), Topology.Kind.LEAVE), "already in progress",
        "remove of " + leaver);
  }

  @Test
  void theLastNodeAndNonMembersCannotLeaveAndMembersCannotJoinAgain() {
    NodeUrl only = node(0);
    assertRefused(() -> Topology.initial(List.of(only)).withLeaving(only, Topology.Kind.LEAVE), "last node");
    List<NodeUrl> three = nodes(3);
    NodeUrl stranger = node(9);
    assertRefused(() -> Topology.initial(three).withLeaving(stranger, Topology.Kind.LEAVE), stranger.toString(),
        "not a member");
    assertRefused(() -> Topology.initial(three).withLeaving(stranger, Topology.Kind.REMOVE), stranger.toString(),
        "not a member");
    assertRefused(() -> Topology.initial(three).withJoining(three.get(1)), three.get(1).toString(), "already a member");
  }

  @Test
  void anAbortGoesBackToTheMembersBeforeTheChangeEveryOneNormalAndStable() {
    List<NodeUrl> three = nodes(3);
    Topology stable = Topology.initial(three);
    NodeUrl joiner = node(3);
    for (Topology streaming : List.of(stable.withJoining(joiner), stable.withLeaving(three.get(1), Topology.Kind.LEAVE),
        stable.withLeaving(three.get(1), Topology.Kind.REMOVE),
        stable.withLeaving(three.get(1), Topology.Kind.LEAVE).withRemoved(three.get(1)))) {
      Topology aborted = streaming.aborted();
      assertEquals(streaming.epoch() + 1, aborted.epoch(), streaming.toString());
      assertTrue(aborted.isStable(), aborted.toString());
      assertNull(aborted.change());
      assertEquals(stable.members(), aborted.members(), streaming + " aborted");
      assertEquals(stable.allNodes(), aborted.allNodes());
      for (byte[] key : RANDOM_KEYS.subList(0, 500)) {
        for (int replicas : REPLICA_COUNTS) {
          assertEquals(stable.writeSets(key, replicas), aborted.writeSets(key, replicas));
          assertEquals(stable.readReplicas(key, replicas), aborted.readReplicas(key, replicas));
          // What the change acknowledged had ack copies in each of its write sets, the first of which is the old owners.
          assertEquals(streaming.writeSets(key, replicas).get(0), aborted.writeSets(key, replicas).get(0));
        }
      }
    }
    assertRefused(stable::aborted, "no change in progress");
    Topology cutover = stable.withJoining(joiner).cutOver();
    assertRefused(cutover::aborted, "reached its cutover", "join of " + joiner, "finishes by itself");
    assertEquals(stable.members(), stable.withJoining(joiner).withRemoved(joiner).members(),
        "removing the joiner while it streams is an abort");
  }

  @Test
  void stepsOutOfOrderAreRefused() {
    Topology stable = Topology.initial(nodes(3));
    assertThrows(TopologyException.class, stable::cutOver);
    assertThrows(TopologyException.class, stable::settle);
    Topology streaming = stable.withJoining(node(3));
    assertThrows(TopologyException.class, streaming::settle);
    Topology cutover = streaming.cutOver();
    assertThrows(TopologyException.class, cutover::cutOver);
    assertThrows(TopologyException.class, cutover.settle()::settle);
  }

  @Test
  void everyStepSurvivesTheJsonRoundTrip() {
    List<NodeUrl> three = nodes(3);
    Topology stable = Topology.initial(three);
    Topology joining = stable.withJoining(node(3));
    Topology leaving = stable.withLeaving(three.get(0), Topology.Kind.LEAVE);
    Topology removing = stable.withLeaving(three.get(1), Topology.Kind.REMOVE);
    List<Topology> steps = List.of(stable, joining, joining.cutOver(), joining.cutOver().settle(), leaving,
        leaving.cutOver(), leaving.cutOver().settle(), removing, removing.cutOver());
    for (Topology step : steps) {
      Topology back = Topology.fromJson(step.toJson().encode(), 7);
      assertEquals(step, back, step::toString);
      assertEquals(step.hashCode(), back.hashCode());
      assertEquals(step.encode(), back.encode());
      assertEquals(step.epoch(), back.epoch());
      assertEquals(step.replicationFactor(), back.replicationFactor(), "the recorded factor, not the fallback");
      assertEquals(step.stage(), back.stage());
      assertEquals(step.change(), back.change());
      assertEquals(step.members(), back.members());
      assertEquals(step.allNodes(), back.allNodes(), "the previous owners survive too");
      for (byte[] key : RANDOM_KEYS.subList(0, 200)) {
        assertEquals(step.writeSets(key, 2), back.writeSets(key, 2), step::toString);
      }
    }
    for (int i = 0; i < steps.size(); i++) {
      for (int j = i + 1; j < steps.size(); j++) {
        assertNotEquals(steps.get(i), steps.get(j));
      }
    }
    Topology reordered = Topology.initial(List.of(three.get(2), three.get(0), three.get(1)));
    assertEquals(stable, reordered, "the order of the conf's list does not matter");
    assertEquals(stable.encode(), reordered.encode());
  }

  @ParameterizedTest(name = "factor {0}")
  @ValueSource(ints = {1, 2, 3, 5})
  void theDefaultFromIsTheFactorCappedByEverySizeAChangeInvolves(int factor) {
    List<NodeUrl> four = nodes(4);
    Topology stable = Topology.initial(four, factor);
    assertEquals(Math.min(factor, 4), stable.defaultFrom());
    assertEquals(4, stable.readSize(), "a request may still ask for every node");
    Topology joining = stable.withJoining(node(4));
    Topology leaving = stable.withLeaving(four.get(0), Topology.Kind.LEAVE);
    for (Topology step : List.of(joining, joining.cutOver(), joining.cutOver().settle(), leaving, leaving.cutOver(),
        leaving.cutOver().settle())) {
      assertEquals(factor, step.replicationFactor(), () -> "every step keeps the factor: " + step);
    }
    assertEquals(Math.min(factor, 4), joining.defaultFrom(), "4 before the join, 5 after: the smaller caps");
    assertEquals(Math.min(factor, 4), joining.cutOver().defaultFrom(), "the previous owners still count");
    assertEquals(Math.min(factor, 5), joining.cutOver().settle().defaultFrom());
    assertEquals(Math.min(factor, 3), leaving.defaultFrom(), "3 after the leave caps it already");
    assertEquals(Math.min(factor, 3), leaving.cutOver().settle().defaultFrom());
  }

  @Test
  void aTopologyWrittenBeforeTheFactorWasRecordedTakesTheFallback() {
    Topology recorded = Topology.initial(nodes(4), 2);
    JsonObject json = recorded.toJson();
    assertEquals(2, json.getInteger("replicationFactor"));
    json.remove("replicationFactor");
    Topology old = Topology.fromJson(json.encode(), 3);
    assertEquals(3, old.replicationFactor());
    assertEquals(3, old.defaultFrom());
    assertEquals(recorded.members(), old.members());
    assertEquals(recorded.epoch(), old.epoch());
    assertEquals(2, Topology.fromJson(recorded.encode(), 3).replicationFactor(), "a recorded factor wins");
  }

  @Test
  void fromJsonRefusesWhatIsNotATopology() {
    String member = node(0).toString();
    List<String> garbage = List.of(
        "",
        "not json",
        "[]",
        "{}",
        "{\"epoch\": 1, \"stage\": \"stable\"}",
        "{\"epoch\": 1, \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"epoch\": 1, \"stage\": \"sideways\", \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"epoch\": 1, \"stage\": \"stable\", \"members\": {\"" + member + "\": \"sleeping\"}}",
        "{\"epoch\": 1, \"stage\": \"stable\", \"members\": {\"ftp://x:1\": \"normal\"}}",
        "{\"epoch\": \"one\", \"stage\": \"stable\", \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"stage\": \"stable\", \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"epoch\": 2, \"stage\": \"streaming\", \"change\": {\"kind\": \"teleport\", \"node\": \"" + member + "\"},"
            + " \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"epoch\": 1, \"stage\": \"stable\", \"members\": {\"" + member + "\": 7}}",
        "{\"epoch\": 1, \"replicationFactor\": 0, \"stage\": \"stable\", \"members\": {\"" + member + "\": \"normal\"}}",
        "{\"epoch\": 1, \"replicationFactor\": \"three\", \"stage\": \"stable\", \"members\": {\"" + member
            + "\": \"normal\"}}");
    for (String text : garbage) {
      assertThrows(IllegalArgumentException.class, () -> Topology.fromJson(text, 3), () -> "accepted: " + text);
    }
  }

  private static void assertRefused(Runnable change, String... mentions) {
    TopologyException refused = assertThrows(TopologyException.class, change::run);
    for (String mention : mentions) {
      assertTrue(refused.getMessage().contains(mention),
          () -> "the message '" + refused.getMessage() + "' does not mention '" + mention + "'");
    }
  }

  /** No node but the joiner receives anything in a join. */
  private static void assertNoOtherReceiver(Topology streaming, List<NodeUrl> old, List<NodeUrl> all) {
    for (byte[] key : RANDOM_KEYS.subList(0, 2_000)) {
      for (int replicas : REPLICA_COUNTS) {
        for (NodeUrl receiver : old) {
          for (NodeUrl source : all) {
            assertFalse(streaming.sends(source, receiver, key, replicas),
                () -> source + " sends to " + receiver + ", not the joiner: " + where(key, replicas));
          }
        }
      }
    }
  }

  /** The key's home set: the first {@code replicas} nodes of its rendezvous order (all of them, at most). */
  private static List<NodeUrl> home(Rendezvous placement, byte[] key, int replicas) {
    return placement.replicasFor(key, Math.min(replicas, placement.size()));
  }

  private static Set<NodeUrl> minus(List<NodeUrl> nodes, Set<NodeUrl> taken) {
    Set<NodeUrl> rest = new HashSet<>(nodes);
    rest.removeAll(taken);
    return rest;
  }

  private static Set<NodeUrl> minus(List<NodeUrl> nodes, List<NodeUrl> taken) {
    return minus(nodes, Set.copyOf(taken));
  }

  private static List<NodeUrl> plus(List<NodeUrl> nodes, NodeUrl node) {
    return Stream.concat(nodes.stream(), Stream.of(node)).toList();
  }

  private static List<NodeUrl> without(List<NodeUrl> nodes, NodeUrl node) {
    return nodes.stream().filter(other -> !other.equals(node)).toList();
  }

  /** Nodes whose urls sort in the order of their index (so the lists here are in the topology's order). */
  @Test
  void aNodeOfTheTopologyOrItsOwnJoinerMayWriteTheNextOneAndNoOtherNode() {
    List<NodeUrl> members = nodes(3);
    NodeUrl stranger = node(7);
    Topology inForce = Topology.initial(members);
    assertTrue(inForce.letsWrite(members.get(0), inForce.withLeaving(members.get(2), Topology.Kind.REMOVE)));
    assertTrue(inForce.letsWrite(stranger, inForce.withJoining(stranger)), "a new node proposes itself");
    assertFalse(inForce.letsWrite(stranger, Topology.initial(members.subList(0, 2))),
        "a node outside the topology drops a member");
    assertFalse(inForce.letsWrite(stranger, inForce.withJoining(node(8))), "a node outside starts another's join");
    Topology joining = inForce.withJoining(stranger);
    assertTrue(joining.letsWrite(stranger, joining.cutOver()), "the joiner takes part in its own change");
    assertFalse(joining.letsWrite(node(8), joining.cutOver()), "a node outside the change steps it on");
  }

  private static List<NodeUrl> nodes(int count) {
    List<NodeUrl> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(node(i));
    }
    return nodes;
  }

  private static NodeUrl node(int index) {
    return NodeUrl.parse("node", "http://10.0.0." + (index + 1) + ":8080");
  }

  private static String where(byte[] key, int replicas) {
    return "key '" + new String(key, StandardCharsets.UTF_8) + "' at " + replicas + " replicas (seed " + SEED + ")";
  }

  private static List<byte[]> randomKeys(int count, long seed) {
    Random random = new Random(seed);
    List<byte[]> keys = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      keys.add(("k" + Long.toUnsignedString(random.nextLong(), 36)).getBytes(StandardCharsets.UTF_8));
    }
    return keys;
  }
}
