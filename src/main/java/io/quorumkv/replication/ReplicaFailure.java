package io.quorumkv.replication;

/** Why a replica did not answer: known down, timed out, refused or failed. */
public final class ReplicaFailure extends RuntimeException {
  public ReplicaFailure(String message) {
    super(message, null, false, false);
  }
}
