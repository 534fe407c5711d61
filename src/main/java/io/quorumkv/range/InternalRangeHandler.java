package io.quorumkv.range;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RangeStream;
import io.quorumkv.web.RouteMount;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET} of {@link InternalEndpoint#RANGE} ({@link RangeProtocol}): every record this node stores in {@code [S, E)},
 * tombstones and expired ones included, streamed with back-pressure for another node's
 * cluster-wide range. A scan failing mid-stream resets the connection before the end frame.
 */
public final class InternalRangeHandler implements RouteMount {
  private final StorageService storage;
  private final PeerAuthorization authorization;

  public InternalRangeHandler(StorageService storage, PeerAuthorization authorization) {
    this.storage = storage;
    this.authorization = authorization;
  }

  @Override
  public void mount(Router router) {
    new PeerRoutes(router, authorization, this).add(InternalEndpoint.RANGE, ApiErrors.guarded(this::handle)).end();
  }

  private void handle(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] start = params.requiredKey("start");
    byte[] end = params.optionalKey("end");
    HttpServerResponse response = ctx.response()
        .setChunked(true)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
    storage.openRange(start, end).onComplete(opened -> {
      if (opened.failed()) {
        ApiErrors.fail(ctx, opened.cause());
      } else {
        new RangeStream(storage, response, opened.result(), RecordFrames.all()).start();
      }
    });
  }
}
