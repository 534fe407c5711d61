package io.quorumkv.topology;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.HomeSet;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.placement.ReplicaPlacement;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The topology in force: the member nodes with their states, an epoch that grows with every
 * step, and the change under way. Immutable; every node derives the same placements from it.
 *
 * <p>A change takes three steps, each a new epoch. {@link Stage#STREAMING}: a joining node is
 * {@code joining} (a leaving one {@code leaving}); reads go to the old owners, writes to the old
 * and the new ones with {@code ack} in each set, and the receivers pull the keys they gain.
 * {@link Stage#CUTOVER}: the joiner is {@code normal} (the leaver gone) and reads go to the new
 * owners, while writes still reach the old ones, so a node still reading the old owners misses
 * nothing. {@link Stage#STABLE}: writes go to the new owners only, and copies elsewhere are dropped.
 *
 * <p>It also carries the cluster's replication factor, the default {@code from}: fixed by the first
 * topology of the cluster and kept by every step, so that every node defaults to the same one.
 */
public final class Topology implements ReplicaPlacement {
  public enum State { JOINING, NORMAL, LEAVING }

  public enum Stage { STABLE, STREAMING, CUTOVER }

  public enum Kind { JOIN, LEAVE, REMOVE }

  /** The change under way: which node joins, leaves, or is removed while down. */
  public record Change(Kind kind, NodeUrl node) {
    @Override
    public String toString() {
      return name(kind) + " of " + node;
    }
  }

  private static final Comparator<NodeUrl> ORDER = Comparator.comparing(NodeUrl::toString);

  /** The epoch of the conf's topology, before any change. */
  public static final long INITIAL_EPOCH = 1;
  private static final String REPLICATION_FACTOR = "replicationFactor";

  private final long epoch;
  private final int replicationFactor;
  private final Map<NodeUrl, State> members;
  private final Stage stage;
  private final Change change;
  /** The owners before the change, still written during the cutover; empty otherwise. */
  private final List<NodeUrl> previous;
  private final Rendezvous readPlacement;
  private final Rendezvous targetPlacement;
  private final Rendezvous previousPlacement;

  private Topology(long epoch, int replicationFactor, Map<NodeUrl, State> members, Stage stage, Change change,
                   List<NodeUrl> previous) {
    if (replicationFactor < 1) {
      throw new IllegalArgumentException("the replication factor must be positive, got " + replicationFactor);
    }
    this.epoch = epoch;
    this.replicationFactor = replicationFactor;
    TreeMap<NodeUrl, State> sorted = new TreeMap<>(ORDER);
    sorted.putAll(members);
    this.members = java.util.Collections.unmodifiableMap(sorted);
    this.stage = stage;
    this.change = change;
    this.previous = previous.stream().sorted(ORDER).toList();
    this.readPlacement = new Rendezvous(nodesIn(State.NORMAL, State.LEAVING));
    this.targetPlacement = new Rendezvous(nodesIn(State.NORMAL, State.JOINING));
    this.previousPlacement = this.previous.isEmpty() ? null : new Rendezvous(this.previous);
  }

  /** The first topology of a cluster: the conf's nodes, all normal, and the conf's replication factor. */
  public static Topology initial(Collection<NodeUrl> nodes, int replicationFactor) {
    Map<NodeUrl, State> members = new TreeMap<>(ORDER);
    nodes.forEach(node -> members.put(node, State.NORMAL));
    return new Topology(INITIAL_EPOCH, replicationFactor, members, Stage.STABLE, null, List.of());
  }

  /** {@link #initial(Collection, int)} at the default replication factor. */
  public static Topology initial(Collection<NodeUrl> nodes) {
    return initial(nodes, NodeConfig.DEFAULT_REPLICATION_FACTOR);
  }

  public long epoch() {
    return epoch;
  }

  /** The cluster's replication factor: the default {@code from} wherever the cluster has that many nodes. */
  public int replicationFactor() {
    return replicationFactor;
  }

  public Stage stage() {
    return stage;
  }

  /** The change under way, null when stable. */
  public Change change() {
    return change;
  }

  public Map<NodeUrl, State> members() {
    return members;
  }

  public boolean isMember(NodeUrl node) {
    return members.containsKey(node);
  }

  public boolean isStable() {
    return stage == Stage.STABLE;
  }

  /** The nodes that answer reads: normal and leaving ones. */
  @Override
  public List<NodeUrl> readNodes() {
    return nodesIn(State.NORMAL, State.LEAVING);
  }

  /** Every node that takes writes during this step: members and, during a cutover, the previous owners. */
  public List<NodeUrl> allNodes() {
    List<NodeUrl> all = new ArrayList<>(members.keySet());
    previous.stream().filter(node -> !members.containsKey(node)).forEach(all::add);
    return all;
  }

  /** The largest {@code from} a request may ask. */
  @Override
  public int readSize() {
    return readPlacement.size();
  }

  /**
   * The {@code from} of a request that names none: the replication factor, or the cluster size when
   * smaller; during a change the smaller of the sizes before and after it, so that a default write
   * needs a majority of each set rather than every node of the smaller one.
   */
  @Override
  public int defaultFrom() {
    int size = Math.min(readPlacement.size(), targetPlacement.size());
    if (previousPlacement != null) {
      size = Math.min(size, previousPlacement.size());
    }
    return Math.min(replicationFactor, size);
  }

  /** The key's replicas for a read at {@code from}. */
  @Override
  public List<NodeUrl> readReplicas(byte[] key, int from) {
    return readPlacement.replicasFor(key, Math.min(from, readPlacement.size()));
  }

  /**
   * Whether conditional writes of the key have no serializer in this step: at the cutover, when
   * its first live replica (at {@code from}) differs between the owners before the change and
   * after it. Nodes apply the cutover moments apart, so for such a key some would still send its
   * conditional writes to the old first replica while others send them to the new one.
   */
  @Override
  public boolean serializerMoves(byte[] key, int from, Predicate<NodeUrl> alive) {
    if (stage != Stage.CUTOVER) {
      return false;
    }
    List<NodeUrl> before = previousPlacement.replicasFor(key, Math.min(from, previousPlacement.size()));
    return !Objects.equals(firstOf(before, alive), firstOf(readReplicas(key, from), alive));
  }

  private static NodeUrl firstOf(List<NodeUrl> replicas, Predicate<NodeUrl> alive) {
    return replicas.stream().filter(alive).findFirst().orElse(null);
  }

  /** The placement reads and repairs use. */
  @Override
  public Rendezvous readPlacement() {
    return readPlacement;
  }

  /**
   * The sets a write at {@code from} must reach {@code ack} in: one when stable, the old and the
   * new owners during a change (they differ in at most one node per set).
   */
  @Override
  public List<List<NodeUrl>> writeSets(byte[] key, int from) {
    List<NodeUrl> reads = HomeSet.of(readPlacement, key, from);
    if (stage == Stage.STABLE) {
      return List.of(reads);
    }
    List<NodeUrl> other = HomeSet.of(stage == Stage.STREAMING ? targetPlacement : previousPlacement, key, from);
    return other.equals(reads) ? List.of(reads) : List.of(reads, other);
  }

  /** Whether this node should hold a record of {@code replicas} copies, in a stable topology. */
  public boolean homes(NodeUrl node, byte[] key, int replicas) {
    return HomeSet.of(readPlacement, key, replicas).contains(node);
  }

  /**
   * Whether {@code node} should still be sent a copy of the key (a hint, a repair): while a change
   * is under way any node taking part may be an owner; once stable, only the key's home set.
   */
  public boolean wants(NodeUrl node, byte[] key, int replicas) {
    return isStable() ? homes(node, key, replicas) : allNodes().contains(node);
  }

  /** The nodes that pull records during this step: the joiner, or the nodes that stay while one leaves. */
  public List<NodeUrl> receivers() {
    if (stage != Stage.STREAMING) {
      return List.of();
    }
    return change.kind() == Kind.JOIN ? List.of(change.node()) : nodesIn(State.NORMAL);
  }

  /** The nodes {@code receiver} pulls from during this step. */
  public List<NodeUrl> sourcesFor(NodeUrl receiver) {
    if (stage != Stage.STREAMING) {
      return List.of();
    }
    return switch (change.kind()) {
      case JOIN -> readNodes();
      case LEAVE -> List.of(change.node());
      case REMOVE -> readNodes().stream().filter(node -> !node.equals(change.node()) && !node.equals(receiver)).toList();
    };
  }

  /**
   * Whether {@code source} sends {@code receiver} the key's record during this step: the receiver
   * is a new owner of the key, and the source is the one it displaces (a join), the leaving node,
   * or, for a removed node, any remaining owner (the receiver keeps the freshest of their copies).
   * Taking the displaced node's copy keeps the key's set of copies what it was before the change.
   */
  public boolean sends(NodeUrl source, NodeUrl receiver, byte[] key, int replicas) {
    if (stage != Stage.STREAMING) {
      return false;
    }
    List<NodeUrl> before = HomeSet.of(readPlacement, key, replicas);
    if (before.contains(receiver) || !HomeSet.of(targetPlacement, key, replicas).contains(receiver)) {
      return false;
    }
    return switch (change.kind()) {
      case JOIN -> source.equals(displaced(before, key, replicas));
      case LEAVE -> source.equals(change.node());
      case REMOVE -> before.contains(source) && !source.equals(change.node());
    };
  }

  private NodeUrl displaced(List<NodeUrl> before, byte[] key, int replicas) {
    List<NodeUrl> after = HomeSet.of(targetPlacement, key, replicas);
    for (NodeUrl node : before) {
      if (!after.contains(node)) {
        return node;
      }
    }
    return before.get(0);
  }

  /**
   * Whether {@code writer} may put {@code next} on the board while this topology is in force: a
   * node taking part in this one (a member, or a previous owner during a cutover), or the node
   * that {@code next} is the join of (a new node proposes itself). Anyone else can neither start a
   * change nor step one on.
   */
  public boolean letsWrite(NodeUrl writer, Topology next) {
    return allNodes().contains(writer)
        || next.change != null && next.change.kind() == Kind.JOIN && next.change.node().equals(writer);
  }

  /** The first step of adding {@code node}; a {@link TopologyException} saying why not. */
  public Topology withJoining(NodeUrl node) {
    requireStable();
    if (members.containsKey(node)) {
      throw new TopologyException(node + " is already a member");
    }
    Map<NodeUrl, State> next = sortedCopy(members);
    next.put(node, State.JOINING);
    return new Topology(epoch + 1, replicationFactor, next, Stage.STREAMING, new Change(Kind.JOIN, node), List.of());
  }

  /** The first step of taking {@code node} away: {@code leave} from itself, else a removal while it is down. */
  public Topology withLeaving(NodeUrl node, Kind kind) {
    requireStable();
    if (!members.containsKey(node)) {
      throw new TopologyException(node + " is not a member");
    }
    if (members.size() == 1) {
      throw new TopologyException(node + " is the last node of the cluster");
    }
    Map<NodeUrl, State> next = sortedCopy(members);
    next.put(node, State.LEAVING);
    return new Topology(epoch + 1, replicationFactor, next, Stage.STREAMING, new Change(kind, node), List.of());
  }

  /**
   * Takes away {@code node}, which is down for good: from a stable topology, a removal; when it is
   * the node a change is streaming for, the way out of that change. A joiner that dies before the
   * cutover is dropped (it never answered reads, and every write also reached the old owners);
   * a leaver that dies mid-stream is removed instead, its keys taken from the remaining owners.
   */
  public Topology withRemoved(NodeUrl node) {
    if (stage == Stage.STREAMING && change.node().equals(node) && change.kind() == Kind.JOIN) {
      return aborted();
    }
    if (stage == Stage.STREAMING && change.node().equals(node) && change.kind() == Kind.LEAVE) {
      return new Topology(epoch + 1, replicationFactor, members, Stage.STREAMING, new Change(Kind.REMOVE, node), List.of());
    }
    return withLeaving(node, Kind.REMOVE);
  }

  /**
   * The way back from a change still streaming, at a new epoch: the members from before it, each
   * {@code normal}, stable. A joiner is dropped, a leaving or removed node is a member again.
   * Nothing acknowledged is lost: while streaming, reads went to the old owners only, and every
   * write needed {@code ack} of the old owners as well as of the new ones. From the cutover on, the
   * new owners answer reads and the change no longer waits for a down node, so it is not undone.
   */
  public Topology aborted() {
    if (stage == Stage.STABLE) {
      throw new TopologyException("no change in progress to abort (epoch " + epoch + ", stable)");
    }
    if (stage == Stage.CUTOVER) {
      throw new TopologyException("the " + change + " reached its cutover (epoch " + epoch + "): too late to abort;"
          + " it finishes by itself, without waiting for down nodes");
    }
    Map<NodeUrl, State> next = new TreeMap<>(ORDER);
    members.forEach((node, state) -> {
      if (state != State.JOINING) {
        next.put(node, State.NORMAL);
      }
    });
    return new Topology(epoch + 1, replicationFactor, next, Stage.STABLE, null, List.of());
  }

  /** The members that count toward a majority: all but the node a removal takes away, down for good. */
  public List<NodeUrl> voters() {
    return members.keySet().stream()
        .filter(node -> change == null || change.kind() != Kind.REMOVE || !change.node().equals(node)).toList();
  }

  /** The second step: the new owners answer reads, the old ones still take writes. */
  public Topology cutOver() {
    if (stage != Stage.STREAMING) {
      throw new TopologyException("no transfer to cut over from at epoch " + epoch);
    }
    Map<NodeUrl, State> next = new TreeMap<>(ORDER);
    members.forEach((node, state) -> {
      if (state != State.LEAVING) {
        next.put(node, State.NORMAL);
      }
    });
    return new Topology(epoch + 1, replicationFactor, next, Stage.CUTOVER, change, readNodes());
  }

  /** The last step: the old owners no longer take writes. */
  public Topology settle() {
    if (stage != Stage.CUTOVER) {
      throw new TopologyException("no cutover to settle at epoch " + epoch);
    }
    return new Topology(epoch + 1, replicationFactor, members, Stage.STABLE, null, List.of());
  }

  private static Map<NodeUrl, State> sortedCopy(Map<NodeUrl, State> members) {
    Map<NodeUrl, State> copy = new TreeMap<>(ORDER);
    copy.putAll(members);
    return copy;
  }

  private void requireStable() {
    if (stage != Stage.STABLE) {
      throw new TopologyException("a change is already in progress: " + change + " (epoch " + epoch + ", "
          + name(stage) + ")");
    }
  }

  private List<NodeUrl> nodesIn(State... states) {
    List<State> wanted = List.of(states);
    return members.entrySet().stream().filter(entry -> wanted.contains(entry.getValue())).map(Map.Entry::getKey)
        .toList();
  }

  /** The lower-case name of a state, stage or kind, as in the JSON. */
  public static String name(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  public JsonObject toJson() {
    JsonObject nodes = new JsonObject();
    members.forEach((node, state) -> nodes.put(node.toString(), name(state)));
    return new JsonObject()
        .put("epoch", epoch)
        .put(REPLICATION_FACTOR, replicationFactor)
        .put("stage", name(stage))
        .put("change", change == null ? null
            : new JsonObject().put("kind", name(change.kind())).put("node", change.node().toString()))
        .put("members", nodes)
        .put("previous", new JsonArray(previous.stream().map(NodeUrl::toString).toList()));
  }

  /**
   * The topology of {@link #toJson}; IllegalArgumentException when the text is not one. A topology
   * written before the factor was recorded has none: it gets {@code factorIfAbsent}.
   */
  public static Topology fromJson(String text, int factorIfAbsent) {
    try {
      JsonObject json = new JsonObject(text);
      Map<NodeUrl, State> members = new TreeMap<>(ORDER);
      json.getJsonObject("members").forEach(entry -> members.put(NodeUrl.parse("members", entry.getKey()),
          State.valueOf(((String) entry.getValue()).toUpperCase(Locale.ROOT))));
      JsonObject change = json.getJsonObject("change");
      List<NodeUrl> previous = json.getJsonArray("previous", new JsonArray()).stream()
          .map(node -> NodeUrl.parse("previous", (String) node)).toList();
      return new Topology(json.getLong("epoch"), json.getInteger(REPLICATION_FACTOR, factorIfAbsent), members,
          Stage.valueOf(json.getString("stage").toUpperCase(Locale.ROOT)),
          change == null ? null : new Change(Kind.valueOf(change.getString("kind").toUpperCase(Locale.ROOT)),
              NodeUrl.parse("change", change.getString("node"))), previous);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a topology: " + e.getMessage(), e);
    }
  }

  /** The canonical text of this topology: equal topologies have equal texts. */
  public String encode() {
    return toJson().encode();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Topology that && encode().equals(that.encode());
  }

  @Override
  public int hashCode() {
    return encode().hashCode();
  }

  @Override
  public String toString() {
    return "epoch " + epoch + " " + name(stage) + (change == null ? "" : " (" + change + ")") + " " + members
        + " replication factor " + replicationFactor;
  }
}
