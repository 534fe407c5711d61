package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;

/** Where the coordinator reports a write that a replica missed, to be handed to it later (hinted handoff). */
public interface MissedWrites {

  /** Keeps the write that {@code target} missed; completes once it is kept durably. */
  Future<Void> missed(NodeUrl target, byte[] key, Record record);
}
