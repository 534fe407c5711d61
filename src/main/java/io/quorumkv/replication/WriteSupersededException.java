package io.quorumkv.replication;

/**
 * Too few replicas stored a write because replicas already hold a record that supersedes it:
 * the write would not be the freshest, so it is not acknowledged. {@code keptVersion} is the
 * highest version those replicas hold; the coordinator writes again above it, a bounded number
 * of times.
 */
public final class WriteSupersededException extends RuntimeException {
  private final long keptVersion;

  public WriteSupersededException(int required, int stored, int superseded, long keptVersion) {
    super(required + " stores required, " + stored + " stored, " + superseded
        + " replicas hold a newer version (" + keptVersion + ")", null, false, false);
    this.keptVersion = keptVersion;
  }

  public long keptVersion() {
    return keptVersion;
  }
}
