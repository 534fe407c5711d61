/**
 * Versions: {@code HybridLogicalClock} issues monotonic versions (wall-clock milliseconds and a
 * counter in one long), {@code ClockLease} persists a bound ahead of them so that a restart never
 * issues a version twice, and {@code LeasedClock} starts the clock above that bound and renews it.
 * The bottom layer: it uses no other package of the node.
 */
package io.quorumkv.versioning;
