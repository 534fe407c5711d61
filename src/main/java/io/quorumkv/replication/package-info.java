/**
 * Replication: the {@code Coordinator} runs a client request against the key's replicas in
 * parallel ({@code LocalReplica} straight to storage, {@code RemoteReplica} over the batched
 * replica protocol), answers through a quorum collector ({@code ReadQuorumCollector},
 * {@code WriteQuorumCollector}), repairs stale replicas after reads ({@code ReadRepair}, only within
 * the key's home set) and reports missed writes ({@code MissedWrites}) for hinted handoff. The
 * replica protocol lives here whole: its client ({@code RemoteReplica}, {@code BatchStream}), its
 * server side ({@code InternalHandler}, {@code BatchStreamHandler}) and its wire format
 * ({@code RecordBatchCodec}, {@code BatchFrames}, {@code RecordHeaders}, {@code InternalProtocol}).
 * Replica failures carry a kind ({@code ReplicaFailure.Kind}: down, timeout, refused, failed).
 */
package io.quorumkv.replication;
