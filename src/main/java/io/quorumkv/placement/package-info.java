/**
 * Where keys live: {@code Rendezvous} hashing over a topology's nodes (every node computes the same
 * replicas for a key), a key's {@code HomeSet}, the {@code Hashes} placement and the anti-entropy
 * index share, and {@code ReplicaPlacement}, what the request path asks of the topology in force.
 */
package io.quorumkv.placement;
