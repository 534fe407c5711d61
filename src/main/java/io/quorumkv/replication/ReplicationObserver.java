package io.quorumkv.replication;

/** Watches the coordinator's fan-out, for metrics. */
public interface ReplicationObserver {
  /** One replica call ended: {@code ok}, {@code down}, {@code timeout} or {@code failed}. */
  void replicaCall(String outcome);

  /** A request got 504. */
  void notEnoughReplicas();
}
