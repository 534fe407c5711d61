package io.quorumkv.cluster;

import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.HazelcastInstance;
import io.quorumkv.config.HazelcastConfig;
import io.quorumkv.config.NodeUrl;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Membership from Hazelcast: each node publishes its HTTP url as a member attribute, and the
 * urls of the current members are the live nodes. Liveness is keyed on the url, not on the
 * member UUID, which Hazelcast may change for a member that rejoins.
 *
 * <p>Failure detection is tuned for a small cluster: heartbeats every second and a member
 * silent for {@code hazelcast.maxNoHeartbeatSeconds} (default 5) is removed, instead of
 * Hazelcast's 60 s; joins start at once over TCP-IP from the conf's member list (no multicast).
 */
public final class HazelcastMembership implements LiveNodes {
  /** How long a Hazelcast operation (a map call) may take before it fails. */
  public static final long CALL_TIMEOUT_MS = 10_000;
  static final String URL_ATTRIBUTE = "quorumkv.url";

  private final NodeUrl self;
  private final Set<NodeUrl> alive = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<UUID, NodeUrl> members = new ConcurrentHashMap<>();
  private final List<Consumer<NodeUrl>> joinListeners = new CopyOnWriteArrayList<>();

  public HazelcastMembership(NodeUrl self) {
    this.self = self;
    alive.add(self);
  }

  /** The cluster manager for this node's clustered Vert.x. */
  public static HazelcastClusterManager clusterManager(NodeUrl self, HazelcastConfig conf) {
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(conf.clusterName());
    config.getNetworkConfig().setPort(conf.port()).setPortAutoIncrement(false);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface(self.host());
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(conf.members()).setConnectionTimeoutSeconds(2);
    config.getMemberAttributeConfig().setAttribute(URL_ATTRIBUTE, self.toString());
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", Integer.toString(conf.maxNoHeartbeatSeconds()));
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
    config.setProperty("hazelcast.local.localAddress", self.host());
    // Hazelcast listens on every interface unless told otherwise, whatever interface it picks.
    config.setProperty("hazelcast.socket.bind.any", "false");
    // Outgoing member connections from the node's own address too, not from whatever the kernel picks.
    config.setProperty("hazelcast.socket.client.bind", "true");
    config.setProperty("hazelcast.socket.client.bind.any", "false");
    // A map call to a member that died or was cut off otherwise retries for up to two minutes
    // (250 tries), holding the topology board's calls behind it; the board gives up after 10 s.
    config.setProperty("hazelcast.operation.call.timeout.millis", Long.toString(CALL_TIMEOUT_MS));
    config.setProperty("hazelcast.invocation.max.retry.count", "20");
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "10");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "jdk");
    return new HazelcastClusterManager(config);
  }

  /** Starts following the membership of a joined Hazelcast instance. */
  public void follow(HazelcastInstance hazelcast) {
    // An initial-membership listener gets the current members atomically with its registration,
    // so no removal can slip in between a snapshot and the listener.
    hazelcast.getCluster().addMembershipListener(new InitialMembershipListener() {
      @Override
      public void init(InitialMembershipEvent event) {
        event.getMembers().forEach(HazelcastMembership.this::track);
      }

      @Override
      public void memberAdded(MembershipEvent event) {
        NodeUrl joined = track(event.getMember());
        if (joined != null && !joined.equals(self)) {
          joinListeners.forEach(listener -> listener.accept(joined));
        }
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        forget(event.getMember().getUuid(), event.getMembers());
      }
    });
  }

  /**
   * Drops the member, and any other UUID the current members no longer include: a member that
   * merged back after a split may come with a new UUID and no removal of its old one, which then
   * kept its url alive after the node died (seen in the fault harness).
   */
  private synchronized void forget(UUID member, Set<Member> current) {
    Set<UUID> present = new HashSet<>();
    current.forEach(m -> present.add(m.getUuid()));
    members.remove(member);
    members.keySet().retainAll(present);
    alive.retainAll(new HashSet<>(members.values()));
    alive.add(self);
  }

  private synchronized NodeUrl track(Member member) {
    String url = member.getAttribute(URL_ATTRIBUTE);
    if (url == null) {
      return null;
    }
    NodeUrl node = NodeUrl.parse(URL_ATTRIBUTE, url);
    // One url, one member: an older UUID of the same node (from before a merge) is gone.
    members.values().removeIf(node::equals);
    members.put(member.getUuid(), node);
    alive.add(node);
    return node;
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
}
