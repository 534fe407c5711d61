package io.quorumkv.http;

import io.quorumkv.range.ClusterRange;
import io.quorumkv.range.ClusterRangeStream;
import io.quorumkv.replication.ClientErrors;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RangeStream;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;
import java.util.Arrays;

/**
 * {@code GET /v0/entities?start=S[&end=E][&scope=node|cluster]}: the live records in {@code [S, E)},
 * streamed; this node's own ({@code scope=node}, the default) or the whole cluster's, merged.
 */
final class RangeHandler {
  /** SPEC.md has a missing {@code start} answered 400: this says how to ask for every key instead. */
  static final String FROM_THE_FIRST_KEY = "start=%00 is the first key";

  private final Vertx vertx;
  private final StorageService storage;
  private final ClusterRange cluster;
  private final InstantSource wallClock;

  RangeHandler(Vertx vertx, StorageService storage, ClusterRange cluster, InstantSource wallClock) {
    this.vertx = vertx;
    this.storage = storage;
    this.cluster = cluster;
    this.wallClock = wallClock;
  }

  void handle(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] start = params.requiredKey("start", FROM_THE_FIRST_KEY);
    byte[] end = params.optionalKey("end");
    String scope = params.optional("scope");
    boolean wholeCluster = "cluster".equals(scope);
    if (scope != null && !wholeCluster && !"node".equals(scope)) {
      throw new BadRequestException("scope must be node or cluster, not '" + scope + "'");
    }
    HttpServerResponse response = ctx.response()
        .setChunked(true)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
    if (end != null && Arrays.compareUnsigned(start, end) >= 0) {
      response.end();
    } else if (wholeCluster) {
      ClusterRangeStream.serve(vertx, ctx, cluster, start, end, wallClock, LiveChunks::chunkOf);
    } else {
      storage.openRange(start, end).onComplete(opened -> {
        if (opened.failed()) {
          ClientErrors.fail(ctx, opened.cause());
        } else {
          new RangeStream(storage, response, opened.result(), new LiveChunks()).start();
        }
      });
    }
  }
}
