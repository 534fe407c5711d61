package io.quorumkv.storage;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the node's disk is full: raised by a write that found no room, cleared by the next write
 * that succeeds. Shown in {@code /v0/cluster}, {@code /metrics} and the dashboard, like etcd's
 * NOSPACE alarm. Thread-safe.
 */
public final class DiskAlarm {
  private final InstantSource wallClock;
  private final AtomicLong raisedAt = new AtomicLong();

  public DiskAlarm(InstantSource wallClock) {
    this.wallClock = wallClock;
  }

  void raise() {
    if (raisedAt.compareAndSet(0, wallClock.millis())) {
      System.getLogger(DiskAlarm.class.getName()).log(System.Logger.Level.WARNING,
          "the disk is full: writes to this node fail until space is freed; reads go on");
    }
  }

  void clear() {
    if (raisedAt.getAndSet(0) != 0) {
      System.getLogger(DiskAlarm.class.getName()).log(System.Logger.Level.INFO, "the disk has room again: writes go on");
    }
  }

  public boolean raised() {
    return raisedAt.get() != 0;
  }

  /** When the alarm was raised (wall-clock millis), 0 when it is not. */
  public long raisedAt() {
    return raisedAt.get();
  }
}
