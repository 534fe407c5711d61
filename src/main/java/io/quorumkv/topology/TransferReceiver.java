package io.quorumkv.topology;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.peer.Throttle;
import io.quorumkv.storage.MetaStore;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.wire.RecordLayout;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;

import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Takes in the records this node gains in a topology change: while the topology is streaming
 * and this node is a receiver, one {@link TransferSession} per source, started once every live
 * node applied the step (so every write already reaches this node too) and the writes started
 * before had their replica timeout to land. Failed sessions start again from their persisted
 * cursor. Progress goes on the board every tick and into the log every few seconds.
 * Runs on the maintenance context.
 */
public final class TransferReceiver {
  private static final System.Logger LOG = System.getLogger(TransferReceiver.class.getName());
  static final long RETRY_MS = 2_000;
  private static final long LOG_EVERY_MS = 5_000;

  private final Vertx vertx;
  private final NodeConfig config;
  private final ClusterTopology topology;
  private final StorageService storage;
  private final MetaStore meta;
  private final HybridLogicalClock clock;
  private final InstantSource wallClock;
  private final SettledGrace grace;
  private final Map<NodeUrl, TransferSession> sessions = new LinkedHashMap<>();
  private PeerClient client;
  private Throttle throttle;
  private long epoch = -1;
  private long loggedAt;

  TransferReceiver(Vertx vertx, NodeConfig config, ClusterTopology topology, StorageService storage,
                   MetaStore meta, HybridLogicalClock clock, SettledGrace grace, InstantSource wallClock) {
    this.vertx = vertx;
    this.config = config;
    this.topology = topology;
    this.storage = storage;
    this.meta = meta;
    this.clock = clock;
    this.wallClock = wallClock;
    this.grace = grace;
  }

  /** Call on the context that runs the transfers. */
  public void start() {
    client = new PeerClient(vertx, config, InternalEndpoint.Timeout.TRANSFER, new PoolOptions());
    throttle = new Throttle(vertx, config.transfer().recordsPerSecond(), config.transfer().bytesPerSecond());
  }

  public void stop() {
    sessions.values().forEach(TransferSession::close);
    sessions.clear();
    if (client != null) {
      client.close();
    }
  }

  /** One look at the topology: starts, restarts or drops sessions, and publishes their progress. */
  Future<?> tick() {
    Topology current = topology.current();
    NodeUrl self = config.url();
    if (current.stage() != Topology.Stage.STREAMING || !current.receivers().contains(self)) {
      if (!sessions.isEmpty()) {
        sessions.values().forEach(TransferSession::close);
        sessions.clear();
      }
      return Future.succeededFuture();
    }
    if (current.epoch() != epoch) {
      sessions.values().forEach(TransferSession::close);
      sessions.clear();
      epoch = current.epoch();
    }
    long now = wallClock.millis();
    boolean graceOver = grace.over(epoch);
    for (NodeUrl source : current.sourcesFor(self)) {
      TransferSession session = sessions.computeIfAbsent(source, from -> new TransferSession(epoch, from, self,
          client, storage, meta, clock, throttle, maxPayloadBytes(), wallClock));
      if (graceOver && session.due(now)) {
        session.start();
      }
      topology.board().publishTransfer(session.id(), session.progress());
    }
    if (now - loggedAt >= LOG_EVERY_MS) {
      loggedAt = now;
      sessions.values().forEach(session -> LOG.log(System.Logger.Level.INFO, session.describe()));
    }
    return Future.succeededFuture();
  }

  private int maxPayloadBytes() {
    return RecordLayout.maxPayloadBytes(config.maxBodyBytes());
  }
}
