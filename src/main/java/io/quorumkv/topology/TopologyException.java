package io.quorumkv.topology;

/** A topology change that cannot be made now; the message says why, for the operator. */
public class TopologyException extends RuntimeException {
  public TopologyException(String message) {
    super(message);
  }
}
