package io.quorumkv.topology;

import java.time.InstantSource;

/**
 * Whether a step of the topology has settled long enough for what comes after it: every live node
 * applied it, and then the grace (the replica timeout) passed, so writes begun under the step
 * before have landed or failed. Used from one context only.
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

  boolean over(long stepEpoch) {
    if (stepEpoch != epoch) {
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
    return now - settledAt >= graceMs;
  }
}
