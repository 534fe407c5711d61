package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.MetaStore;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;

import java.time.InstantSource;

/**
 * After a change, drops the records this node no longer replicates: once the topology is stable
 * at a new epoch, every live node applied it (so no write sends such keys here any more) and the
 * writes begun before had their replica timeout, a sweep deletes each record whose home set
 * leaves this node out. The new owners confirmed them before the change could get there (their
 * transfers finished). A second sweep {@link #LATE_SWEEP_MS} later drops what a write sent
 * before the change ended still brought (a replica batch delayed on a busy node). The epoch swept
 * twice is persisted, so a restart does not sweep again. The conf's own topology follows no
 * change, so it counts as cleaned: a fresh node does not walk its store.
 * Runs on the maintenance context.
 */
final class Cleanup {
  private static final System.Logger LOG = System.getLogger(Cleanup.class.getName());
  private static final String CLEANED = "topology.cleaned";
  private static final int KEYS_PER_STEP = 4096;
  static final long LATE_SWEEP_MS = 30_000;

  private final ClusterTopology topology;
  private final StorageService storage;
  private final MetaStore meta;
  private final SettledGrace grace;
  private final InstantSource wallClock;
  private long cleanedEpoch = -1;
  private boolean sweeping;
  private long firstSweptEpoch = -1;
  private long firstSweptAt;

  Cleanup(ClusterTopology topology, StorageService storage, MetaStore meta, SettledGrace grace,
          InstantSource wallClock) {
    this.topology = topology;
    this.storage = storage;
    this.meta = meta;
    this.grace = grace;
    this.wallClock = wallClock;
  }

  Future<?> tick() {
    if (sweeping) {
      return Future.succeededFuture();
    }
    if (cleanedEpoch < 0) {
      return storage.submit(() -> meta.readLong(CLEANED, Topology.INITIAL_EPOCH))
          .onSuccess(epoch -> cleanedEpoch = epoch);
    }
    Topology current = topology.current();
    if (!current.isStable() || current.epoch() <= cleanedEpoch || !grace.over(current.epoch())) {
      return Future.succeededFuture();
    }
    boolean second = firstSweptEpoch == current.epoch();
    if (second && wallClock.millis() - firstSweptAt < LATE_SWEEP_MS) {
      return Future.succeededFuture();
    }
    sweeping = true;
    NodeUrl self = topology.self();
    long started = wallClock.millis();
    return sweep(current, self, new byte[0], 0).compose(dropped -> !second ? Future.succeededFuture(dropped)
        : storage.submit(() -> {
          meta.writeLong(CLEANED, current.epoch());
          return dropped;
        })).onComplete(done -> {
      sweeping = false;
      if (done.succeeded()) {
        if (second) {
          cleanedEpoch = current.epoch();
        } else {
          firstSweptEpoch = current.epoch();
          firstSweptAt = wallClock.millis();
        }
        if (done.result() > 0) {
          LOG.log(System.Logger.Level.INFO, "dropped " + done.result() + " records this node no longer replicates"
              + " (topology epoch " + current.epoch() + ") in " + (wallClock.millis() - started) + " ms");
        }
      }
    });
  }

  private Future<Long> sweep(Topology on, NodeUrl self, byte[] from, long dropped) {
    if (topology.current().epoch() != on.epoch()) {
      return Future.failedFuture("the topology changed during the sweep; it starts again");
    }
    return storage.drop(from, KEYS_PER_STEP, (key, record) -> !on.homes(self, key, record.replicas()))
        .compose(step -> step.nextKey() == null ? Future.succeededFuture(dropped + step.purged())
            : sweep(on, self, step.nextKey(), dropped + step.purged()));
  }

}
