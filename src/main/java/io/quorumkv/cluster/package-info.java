/**
 * The cluster as a node sees it: {@code Rendezvous} places keys on the static topology (every node
 * computes the same replicas for a key), and {@code LiveNodes}, backed by Hazelcast membership in
 * {@code HazelcastMembership}, says which nodes are alive. Placement never depends on liveness.
 */
package io.quorumkv.cluster;

