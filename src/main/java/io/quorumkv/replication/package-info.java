/**
 * Replication: the {@code Coordinator} runs a client request against the key's replicas in
 * parallel ({@code LocalReplica} straight to storage, {@code RemoteReplica} over the batched
 * internal protocol, {@code RecordBatchCodec}), answers through a quorum collector
 * ({@code ReadQuorumCollector}, {@code WriteQuorumCollector}), repairs stale replicas after reads
 * ({@code ReadRepair}, only within the key's {@code HomeSet}: the first {@code replicas} nodes of
 * its rendezvous order) and reports missed writes ({@code MissedWrites}) for hinted handoff.
 * Replica failures carry a kind ({@code ReplicaFailure.Kind}: down, timeout, refused, failed).
 */
package io.quorumkv.replication;

