package io.quorumkv.replication;

/** The request's ack/from cannot be met by this cluster, whatever its health: a 400. */
public final class InvalidQuorumException extends RuntimeException {
  public InvalidQuorumException(String message) {
    super(message, null, false, false);
  }
}
