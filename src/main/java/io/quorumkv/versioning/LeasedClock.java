package io.quorumkv.versioning;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.InstantSource;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The node's clock with its persisted {@link ClockLease}: started above the bound the last run
 * left (after a crash, once the wall clock has passed it: a timer, not a sleep), renewed ahead of
 * the versions it issues, and left at the exact clock by a graceful stop.
 */
public final class LeasedClock {
  private static final System.Logger LOG = System.getLogger(LeasedClock.class.getName());

  /** Runs the lease's blocking reads and writes off the event loops. */
  public interface Blocking {
    <T> Future<T> run(Callable<T> task);
  }

  private final ClockLease lease;
  private final HybridLogicalClock clock;
  private final Blocking renewals;
  /** The renewal under way or last done; guarded by this. */
  private Future<?> renewal;

  private LeasedClock(ClockLease lease, HybridLogicalClock clock, Blocking renewals) {
    this.lease = lease;
    this.clock = clock;
    this.renewals = renewals;
    clock.renewLeaseWith(this::renew);
  }

  /**
   * Starts the clock above the persisted bound and persists its first lease (both through
   * {@code vertx}'s worker pool); later renewals run through {@code renewals}.
   */
  public static Future<LeasedClock> start(Vertx vertx, ClockLease lease, InstantSource wallClock, long maxClockOffsetMs,
                                          Blocking renewals) {
    return vertx.executeBlocking(lease::persistedBound).compose(floor -> {
      long waitMs = ClockLease.waitBeforeStartMs(floor, wallClock.millis(), maxClockOffsetMs);
      if (waitMs > 0) {
        LOG.log(System.Logger.Level.INFO,
            "waiting " + waitMs + " ms for the wall clock to pass the persisted clock lease");
      }
      Future<Void> waited = waitMs > 0 ? vertx.timer(waitMs, TimeUnit.MILLISECONDS) : Future.succeededFuture();
      return waited.compose(ignored -> {
        LeasedClock started = new LeasedClock(lease, HybridLogicalClock.leased(wallClock, floor, maxClockOffsetMs),
            renewals);
        return vertx.executeBlocking(() -> {
          started.renewNow();
          return started;
        });
      });
    });
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  public ClockLease lease() {
    return lease;
  }

  /** Renews the lease; a renewal already under way is shared, not doubled. */
  public synchronized Future<?> renew() {
    if (renewal == null || renewal.isComplete()) {
      renewal = renewals.run(() -> {
        renewNow();
        return null;
      });
    }
    return renewal;
  }

  /** At a graceful stop nothing issues versions any more: the exact clock is the next start's floor. Blocking. */
  public void persistExact() {
    lease.persist(clock.current());
  }

  /** Persists a lease ahead of the clock, then lets the clock issue versions up to it. Blocking. */
  private void renewNow() {
    long bound = ClockLease.boundFor(clock);
    lease.persist(bound);
    clock.leaseUpTo(bound);
  }
}
