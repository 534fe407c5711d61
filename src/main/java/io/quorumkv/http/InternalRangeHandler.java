package io.quorumkv.http;

import io.quorumkv.range.RangeProtocol;
import io.quorumkv.storage.StorageService;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET} of {@link RangeProtocol#PATH}: every record this node stores in {@code [S, E)},
 * tombstones and expired ones included, streamed with back-pressure for another node's
 * cluster-wide range. A scan failing mid-stream resets the connection before the end frame.
 */
final class InternalRangeHandler {
  private final StorageService storage;

  InternalRangeHandler(StorageService storage) {
    this.storage = storage;
  }

  void handle(RoutingContext ctx) {
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
        new RangeStream(storage, response, opened.result(), RangeFormat.recordFrames()).start();
      }
    });
  }
}
