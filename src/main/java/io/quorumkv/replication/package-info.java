/**
 * Replication: the {@code Coordinator} runs a client request against the key's replicas in
 * parallel ({@code LocalReplica} straight to storage, {@code RemoteReplica} over the batched
 * replica protocol), answers through a quorum collector ({@code ReadQuorumCollector},
 * {@code WriteQuorumCollector}), repairs stale replicas after reads ({@code ReadRepair}, only within
 * the key's home set) and reports missed writes ({@code MissedWrites}) for hinted handoff. The
 * replica protocol lives here whole: its client ({@code RemoteReplica}, {@code BatchStream}), its
 * server side ({@code InternalHandler}, {@code BatchStreamHandler}) and what of its format is its
 * own ({@code BatchAnswers}, {@code RecordHeaders}, {@code InternalProtocol}); the frames, the
 * record layout and the operations are the shared {@code wire} format's.
 * Replica failures carry a kind ({@code ReplicaFailure.Kind}: down, timeout, refused, failed).
 * Compare-and-set ({@code ConditionalWrites}, {@code KeyLocks}) runs on a key's first live replica;
 * its forwarding lives beside it: {@code ConditionalForwarder} sends a conditional write there and
 * {@code ConditionalEndpoints} answers it. What such a write reads from its request and how it is
 * answered are shared with the public API: {@code EntityQuery} (quorum and ttl), {@code Preconditions}
 * (the conditional headers), {@code WriteAnswers} and {@code ClientErrors} (a coordination failure's status).
 */
package io.quorumkv.replication;
