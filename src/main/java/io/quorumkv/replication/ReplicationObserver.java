package io.quorumkv.replication;

/** Watches the coordinator's fan-out and its batch streams, for metrics. */
public interface ReplicationObserver extends StreamObserver {
  /** One replica call succeeded. */
  void replicaCallSucceeded();

  /** One replica call failed. */
  void replicaCallFailed(ReplicaFailure.Kind kind);

  /** A write attempt was refused by replicas holding a newer record, and goes again above it. */
  void writeSuperseded();

  /** A replica answered a read with a digest, a large value left out ({@link LeftOutValues}). */
  void digestReceived();

  /** A read's freshest answer was a digest, so its value was read whole from that replica. */
  void valueReadAfterDigest();

  /** A request got 504. */
  void notEnoughReplicas();
}
