package io.quorumkv.versioning;

/**
 * The clock cannot issue or adopt a version: one seen elsewhere is too far ahead of this node's
 * wall clock, or the persisted lease does not yet cover the next version. A request that meets
 * it fails with a 503 rather than taking or spreading a version it must not.
 */
public final class ClockException extends RuntimeException {
  private final boolean waitsForLease;
  private final long aheadMs;

  ClockException(String message, boolean waitsForLease) {
    this(message, waitsForLease, 0);
  }

  ClockException(String message, boolean waitsForLease, long aheadMs) {
    super(message, null, false, false);
    this.waitsForLease = waitsForLease;
    this.aheadMs = aheadMs;
  }

  /** How far the refused version was ahead of this node's wall clock, in millis; 0 when that was not the cause. */
  public long aheadMs() {
    return aheadMs;
  }

  /** The version was refused only because the persisted lease does not cover it yet. */
  public boolean waitsForLease() {
    return waitsForLease;
  }
}
