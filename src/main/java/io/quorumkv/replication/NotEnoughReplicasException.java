package io.quorumkv.replication;

import java.util.List;

/**
 * Fewer than {@code ack} replicas answered: a 504 that says how many were required, how many
 * answered, and what happened to the others.
 */
public final class NotEnoughReplicasException extends RuntimeException {
  private final int required;
  private final int received;

  public NotEnoughReplicasException(int required, int received, int replicas, List<String> failures) {
    super(required + " acks required, " + received + " received, " + failures.size() + " of " + replicas
        + " replicas failed (" + String.join(", ", failures) + ")", null, false, false);
    this.required = required;
    this.received = received;
  }

  public int required() {
    return required;
  }

  public int received() {
    return received;
  }
}
