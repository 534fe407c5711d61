package io.quorumkv.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.quorumkv.config.HazelcastConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.TestCluster;

import java.util.function.Consumer;

/**
 * A Hazelcast member in the test JVM that joins a {@link ProcessCluster}'s group as any host
 * knowing its name and members could: the nodes' own Hazelcast settings, but no proof of being
 * a node ({@link MemberProofs}), so the nodes do not take it for one. Terminate it after.
 */
final class ForeignMember {
  private ForeignMember() {
  }

  static HazelcastInstance join(ProcessCluster cluster) {
    return join(cluster, config -> { });
  }

  /** Joins with the nodes' settings and whatever {@code changes} makes of them. */
  static HazelcastInstance join(ProcessCluster cluster, Consumer<Config> changes) {
    HazelcastConfig conf = new HazelcastConfig(TestCluster.freePorts(1).get(0), cluster.hazelcastMembers(),
        cluster.clusterName(), HazelcastConfig.DEFAULT_MAX_NO_HEARTBEAT_SECONDS);
    Config config = MemberSettings.of(NodeUrl.parse("url", "http://127.0.0.1:1"), conf);
    changes.accept(config);
    return Hazelcast.newHazelcastInstance(config);
  }
}
