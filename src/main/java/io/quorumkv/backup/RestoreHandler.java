package io.quorumkv.backup;

import io.quorumkv.admission.Admission;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.range.ClusterRange;
import io.quorumkv.range.ClusterRangeStream;
import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.InternalHandler;
import io.quorumkv.replication.Quorum;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.topology.ClusterTopology;
import io.quorumkv.topology.Topology;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.RouteMount;
import io.quorumkv.wire.BatchOperations.Operation;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The nodes' side of {@code java -jar quorumkv.jar restore} ({@link RestoreProtocol}; the tool's side is
 * {@link RestoreClient}), for admin tokens (checked by the router, as every {@code /admin} path): each
 * record of a batch goes to every replica its key has in the topology in force, this node coordinating.
 * Records keep their versions ({@link Coordinator#restore}), or, for a rollback, are written again at
 * fresh versions from this node's clock at {@code ack = from}. One per event loop, with that loop's
 * coordinator and cluster range.
 */
public final class RestoreHandler implements RouteMount {
  /** A batch's bytes beyond its records' values. */
  private static final long BATCH_OVERHEAD_BYTES = 2L << 20;

  private final Vertx vertx;
  private final NodeConfig config;
  private final Coordinator coordinator;
  private final ClusterTopology topology;
  private final ClusterRange cluster;
  private final Admission admission;
  private final InstantSource wallClock;

  public RestoreHandler(Vertx vertx, NodeConfig config, Coordinator coordinator, ClusterTopology topology,
                        ClusterRange cluster, Admission admission, InstantSource wallClock) {
    this.vertx = vertx;
    this.config = config;
    this.coordinator = coordinator;
    this.topology = topology;
    this.cluster = cluster;
    this.admission = admission;
    this.wallClock = wallClock;
  }

  @Override
  public void mount(Router router) {
    router.get(RestoreProtocol.PATH).handler(this::describe);
    router.post(RestoreProtocol.PATH)
        .handler(RawBodyHandler.forClients(config.maxBodyBytes() + BATCH_OVERHEAD_BYTES, admission))
        .handler(ApiErrors.guarded(this::restore));
    router.get(RestoreProtocol.KEYS_PATH).handler(ApiErrors.guarded(this::keys));
    router.route(RestoreProtocol.PATH).handler(ApiErrors.methodNotAllowed("GET, POST"));
    router.route(RestoreProtocol.KEYS_PATH).handler(ApiErrors.methodNotAllowed("GET"));
  }

  /** What the tool checks before it reads a backup: that it may write here, and the cluster it writes to. */
  private void describe(RoutingContext ctx) {
    JsonObject about = new JsonObject()
        .put("node", config.url().toString())
        .put("clusterId", topology.clusterId())
        .put("topology", topology.current().toJson())
        .put("purgeGraceMs", config.storage().purgeGraceMs())
        .put("maxRecords", RestoreProtocol.MAX_RECORDS);
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(about.encode());
  }

  private void restore(RoutingContext ctx) {
    String versions = QueryParams.of(ctx).optional(RestoreProtocol.VERSIONS);
    boolean fresh = RestoreProtocol.FRESH.equals(versions);
    if (versions != null && !fresh && !RestoreProtocol.KEEP.equals(versions)) {
      throw new BadRequestException("versions must be keep or fresh, not '" + versions + "'");
    }
    List<Operation> operations = InternalHandler.operationsOf(ctx, RestoreProtocol.MAX_RECORDS);
    if (operations == null) {
      return;
    }
    if (operations.stream().anyMatch(Operation::isRead)) {
      throw new BadRequestException("a restore batch holds writes only");
    }
    List<Future<Boolean>> outcomes = new ArrayList<>(operations.size());
    for (Operation operation : operations) {
      outcomes.add(fresh ? rewrite(operation.key(), operation.record())
          : coordinator.restore(operation.key(), operation.record()));
    }
    Future.join(outcomes).onComplete(all -> {
      long stored = 0;
      long newer = 0;
      long failed = 0;
      String error = null;
      for (Future<Boolean> outcome : outcomes) {
        if (outcome.failed()) {
          failed++;
          error = error == null ? String.valueOf(outcome.cause().getMessage()) : error;
        } else if (outcome.result()) {
          stored++;
        } else {
          newer++;
        }
      }
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
          .end(RestoreProtocol.outcome(stored, newer, failed, error).encode());
    });
  }

  /**
   * The record's value, or a tombstone, written at a fresh version to every node of the key's home
   * set: for a rollback, which must win over newer writes wherever they went. The set is the default
   * one, or the record's own when wider (the plan's tombstones, which do not know the cluster's
   * copies, name every node), so no copy of either side, the backup's or the cluster's, is left out.
   */
  private Future<Boolean> rewrite(byte[] key, Record record) {
    Topology current = topology.current();
    int from = Math.min(current.readSize(), Math.max(current.defaultFrom(), record.replicas()));
    Quorum all = new Quorum(from, from);
    Future<Long> written = record.tombstone()
        ? coordinator.delete(key, all)
        : coordinator.put(key, record.value(), record.expiresAt(), all);
    return written.map(true);
  }

  /** The cluster's live keys in {@code [start, end)}, one per line, percent-encoded (UTF-8). */
  private void keys(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] start = params.requiredKey("start");
    byte[] end = params.optionalKey("end");
    ctx.response().setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8");
    if (end != null && Arrays.compareUnsigned(start, end) >= 0) {
      ctx.response().end();
      return;
    }
    ClusterRangeStream.serve(vertx, ctx, cluster, start, end, wallClock, RestoreHandler::keyLine);
  }

  private static Buffer keyLine(RangeEntry entry) {
    return Buffer.buffer(QueryParams.encodeKey(entry.key()) + "\n");
  }
}
