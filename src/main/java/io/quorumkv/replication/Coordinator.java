package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

/**
 * Runs a client request against the key's replicas: versions writes from this node's clock
 * and applies them, reads back the freshest record. On a single node the only replica is
 * the local one, so every valid quorum is 1/1.
 */
public final class Coordinator {
  private final HybridLogicalClock clock;
  private final Replica local;

  public Coordinator(HybridLogicalClock clock, Replica local) {
    this.clock = clock;
    this.local = local;
  }

  /** The freshest record the quorum saw, which may be a tombstone or expired; null if none had one. */
  public Future<Record> read(byte[] key, Quorum quorum) {
    return local.read(key);
  }

  /** Writes the value; completes with its version once {@code ack} replicas stored it. */
  public Future<Long> put(byte[] key, byte[] value, long expiresAt, Quorum quorum) {
    return write(key, Record.live(clock.next(), value, expiresAt));
  }

  /** Writes a tombstone; completes with its version once {@code ack} replicas stored it. */
  public Future<Long> delete(byte[] key, Quorum quorum) {
    return write(key, Record.tombstone(clock.next()));
  }

  private Future<Long> write(byte[] key, Record record) {
    return local.write(key, record).map(record.version());
  }
}
