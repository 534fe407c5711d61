package io.quorumkv.cluster;

/** Hears what membership undid or refused of a Hazelcast member that is not a node (for metrics). */
public interface MembershipObserver {
  MembershipObserver NONE = event -> { };

  /**
   * {@code event}: {@code proof}, a member's claim to be a node did not verify; {@code state}, a
   * cluster state no node sets (PASSIVE, FROZEN, NO_MIGRATION) was set back to ACTIVE; {@code rebuilt},
   * this node's Hazelcast member was shut down by another member and built again.
   */
  void membershipDefended(String event);
}
