package io.quorumkv.storage;

/**
 * The say of replication in a purge: a tombstone or expired record past its grace leaves the
 * disk only if the gate allows, so that no other replica can still hold an older live copy.
 */
@FunctionalInterface
public interface PurgeGate {
  /** A node with no other replicas: the grace alone decides. */
  PurgeGate GRACE_ONLY = (key, record, storedAt) -> true;

  /** @param storedAt this node's wall-clock millis when the record took its current form here */
  boolean allows(byte[] key, Record record, long storedAt);
}
