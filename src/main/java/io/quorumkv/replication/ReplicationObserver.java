package io.quorumkv.replication;

/** Watches the coordinator's fan-out, for metrics. */
public interface ReplicationObserver {
  /** One replica call succeeded. */
  void replicaCallSucceeded();

  /** One replica call failed. */
  void replicaCallFailed(ReplicaFailure.Kind kind);

  /** A write attempt was refused by replicas holding a newer record, and goes again above it. */
  void writeSuperseded();

  /** A request got 504. */
  void notEnoughReplicas();
}
