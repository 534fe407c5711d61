package io.quorumkv.cluster;

import com.hazelcast.map.IMap;
import io.quorumkv.config.NodeUrl;

import java.util.UUID;

/**
 * Which Hazelcast member is which node. Each node writes its url to the map {@value #MAP} under its
 * own member's UUID, sealed with the cluster secret ({@link HazelcastSeal}); a member counts as a
 * node only with such an entry under its UUID. The seal covers the UUID, so a member without the
 * secret can neither claim a node's url nor copy a node's entry under its own UUID. Without a
 * secret the entry is the bare url and any member can claim one (Hazelcast is trusted).
 */
final class MemberProofs {
  static final String MAP = "quorumkv.members";

  /** Null without a cluster secret. */
  private final HazelcastSeal seal;
  private final NodeUrl self;
  private final MembershipObserver observer;

  MemberProofs(String clusterSecret, NodeUrl self, MembershipObserver observer) {
    this.seal = clusterSecret == null ? null : HazelcastSeal.of(clusterSecret);
    this.self = self;
    this.observer = observer;
  }

  /** What this node writes under its member's UUID. */
  Object own(UUID member) {
    return seal == null ? self.toString() : seal.seal(MAP, member.toString(), self, self.toString());
  }

  /** Writes this node's entry unless it is there already. Blocking. */
  void publish(IMap<String, Object> proofs, UUID member) {
    Object own = own(member);
    if (!own.equals(proofs.get(member.toString()))) {
      proofs.put(member.toString(), own);
    }
  }

  /** The node the entry proves its member to be, or null (then counted) when it proves nothing. */
  NodeUrl verify(String member, Object stored) {
    NodeUrl node = seal == null ? bare(stored) : sealed(member, stored);
    if (node == null) {
      observer.membershipDefended("proof");
    }
    return node;
  }

  private NodeUrl sealed(String member, Object stored) {
    HazelcastSeal.Opened opened = seal.open(MAP, member, stored);
    return opened != null && opened.value().equals(opened.writer().toString()) ? opened.writer() : null;
  }

  private static NodeUrl bare(Object stored) {
    try {
      return stored instanceof String url ? NodeUrl.parse("member", url) : null;
    } catch (RuntimeException notAUrl) {
      return null;
    }
  }
}
