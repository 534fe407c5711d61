package io.quorumkv.topology;

import java.time.InstantSource;

/**
 * The one rule for when a step of the topology has settled long enough for what comes after it:
 * every live node applied it, and then the grace (the replica timeout, or longer where a caller
 * says so) passed, so writes begun under the step before have landed or failed. Every ticker of a
 * change asks the same instance; a step older than the last one asked about never counts as
 * settled, since a newer step superseded it. Used from one context only.
 */
final class SettledGrace {
  private final ClusterTopology topology;
  private final long graceMs;
  private final InstantSource wallClock;
  private long epoch = -1;
  private long settledAt;

  SettledGrace(ClusterTopology topology, long graceMs, InstantSource wallClock) {
    this.topology = topology;
    this.graceMs = graceMs;
    this.wallClock = wallClock;
  }

  long graceMs() {
    return graceMs;
  }

  boolean over(long stepEpoch) {
    return over(stepEpoch, graceMs);
  }

  /** Whether the step settled at least {@code waitMs} ago. */
  boolean over(long stepEpoch, long waitMs) {
    if (stepEpoch < epoch) {
      return false;
    }
    if (stepEpoch > epoch) {
      epoch = stepEpoch;
      settledAt = 0;
    }
    long now = wallClock.millis();
    if (settledAt == 0) {
      if (!topology.settled(stepEpoch)) {
        return false;
      }
      settledAt = now;
    }
    return now - settledAt >= waitMs;
  }
}
