package io.quorumkv.replication;

/**
 * A conditional write not done because the key's freshest record did not meet its condition
 * (HTTP 412); carries that record's version when it is live.
 */
public final class ConditionFailedException extends RuntimeException {
  private final Long currentVersion;

  public ConditionFailedException(Long currentVersion, String reason) {
    super(reason, null, false, false);
    this.currentVersion = currentVersion;
  }

  /** The version of the key's freshest live record, null when the key is absent. */
  public Long currentVersion() {
    return currentVersion;
  }
}
