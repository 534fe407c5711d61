package io.quorumkv.replication;

import io.quorumkv.storage.DiskFullException;

/** Why a replica did not answer, by kind, with a detail for the 504's body. */
public final class ReplicaFailure extends RuntimeException {
  /** The kinds of replica failure, also the metric's outcome label. */
  public enum Kind {
    /** Membership sees the node down: failed at once, not called. */
    DOWN,
    /** No answer within the replica timeout (waiting for a connection included). */
    TIMEOUT,
    /**
     * The node answered, for this operation, that it will never take it (a version too far ahead of
     * its clock): sending it again, as a hint, is pointless. A status other than 200 for a whole
     * batch is not this but {@link #FAILED} (or {@link #DISK_FULL} for 507): it may pass.
     */
    REFUSED,
    /** The replica's disk is full: it takes no writes until space is freed (reads go on). */
    DISK_FULL,
    /** The call or the replica's storage failed otherwise. */
    FAILED
  }

  private final Kind kind;

  public ReplicaFailure(Kind kind, String detail) {
    super(detail, null, false, false);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  /** The kind of any failure of a replica call: a ReplicaFailure's own, a full disk's, else {@link Kind#FAILED}. */
  public static Kind kindOf(Throwable failure) {
    if (failure instanceof ReplicaFailure replicaFailure) {
      return replicaFailure.kind;
    }
    return failure instanceof DiskFullException ? Kind.DISK_FULL : Kind.FAILED;
  }
}
