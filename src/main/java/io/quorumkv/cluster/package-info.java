/**
 * Membership: {@code LiveNodes}, backed by Hazelcast in {@code HazelcastMembership}, says which
 * nodes are alive, a member counting as a node only with its {@code MemberProofs} entry (sealed by
 * {@code HazelcastSeal}, which the topology board's values use too); {@code JoinRetry} and
 * {@code StateRefusalWatch} retry a join Hazelcast refuses for its cluster state. Where keys live
 * is {@code placement}'s, and never depends on liveness.
 */
package io.quorumkv.cluster;
