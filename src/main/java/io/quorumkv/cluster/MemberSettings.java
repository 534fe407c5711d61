package io.quorumkv.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import io.quorumkv.config.HazelcastConfig;
import io.quorumkv.config.NodeUrl;

/**
 * A node's Hazelcast member settings. Failure detection is tuned for a small cluster: heartbeats
 * every second and a member silent for {@code hazelcast.maxNoHeartbeatSeconds} (default 5) is
 * removed, instead of Hazelcast's 60 s; joins start at once over TCP-IP from the conf's member
 * list (no multicast), and the member listens on the host of the node's url only.
 */
public final class MemberSettings {
  private MemberSettings() {
  }

  public static Config of(NodeUrl self, HazelcastConfig conf) {
    Config config = new Config();
    config.setClusterName(conf.clusterName());
    config.getNetworkConfig().setPort(conf.port()).setPortAutoIncrement(false);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface(self.host());
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(conf.members()).setConnectionTimeoutSeconds(2);
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
    config.setProperty("hazelcast.operation.call.timeout.millis", Long.toString(HazelcastMembership.CALL_TIMEOUT_MS));
    config.setProperty("hazelcast.invocation.max.retry.count", "20");
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "10");
    // The node leaves the group itself when it stops; a member shut down by anything else is built again.
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config.setProperty("hazelcast.graceful.shutdown.max.wait", "10");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "jdk");
    return config;
  }
}
