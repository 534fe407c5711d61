package io.quorumkv.replication;

import java.util.List;

/**
 * Fewer than {@code ack} replicas answered: a 504 that says how many were required, how many
 * answered, and what happened to the others.
 */
public final class NotEnoughReplicasException extends RuntimeException {
  private final int required;
  private final int received;
  private final boolean diskFull;

  public NotEnoughReplicasException(int required, int received, int replicas, List<String> failures) {
    this(required, received, replicas, failures, false);
  }

  /** @param diskFull every replica that failed did so for a full disk */
  public NotEnoughReplicasException(int required, int received, int replicas, List<String> failures,
                                    boolean diskFull) {
    super(required + " acks required, " + received + " received, " + failures.size() + " of " + replicas
        + " replicas failed (" + String.join(", ", failures) + ")", null, false, false);
    this.required = required;
    this.received = received;
    this.diskFull = diskFull && !failures.isEmpty();
  }

  /** Whether the write failed only for full disks: a {@code 507}, not a {@code 504}. */
  public boolean diskFull() {
    return diskFull;
  }

  public int required() {
    return required;
  }

  public int received() {
    return received;
  }
}
