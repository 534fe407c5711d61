/**
 * Versions: {@code HybridLogicalClock} issues monotonic versions (wall-clock milliseconds and a
 * counter in one long), and {@code ClockLease} persists a bound ahead of them so that a restart
 * never issues a version twice.
 */
package io.quorumkv.versioning;
