package io.quorumkv.config;

import java.util.List;

/**
 * How a node joins the membership group.
 *
 * @param port                  this node's Hazelcast port
 * @param members               the TCP-IP join list, {@code host:port} of every member
 * @param clusterName           the Hazelcast cluster name: only members with the same name join
 * @param maxNoHeartbeatSeconds a member silent this long is declared down
 */
public record HazelcastConfig(int port, List<String> members, String clusterName, int maxNoHeartbeatSeconds) {
  public static final int DEFAULT_PORT = 5701;
  public static final String DEFAULT_CLUSTER_NAME = "quorumkv";
  public static final int DEFAULT_MAX_NO_HEARTBEAT_SECONDS = 5;
}
