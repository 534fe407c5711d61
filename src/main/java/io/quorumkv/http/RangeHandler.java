package io.quorumkv.http;

import io.quorumkv.storage.StorageService;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.util.Arrays;

/** {@code GET /v0/entities?start=S[&end=E]}: this node's live records in {@code [S, E)}, streamed. */
final class RangeHandler {
  private final StorageService storage;

  RangeHandler(StorageService storage) {
    this.storage = storage;
  }

  void handle(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] start = params.requiredKey("start");
    byte[] end = params.optionalKey("end");
    HttpServerResponse response = ctx.response()
        .setChunked(true)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
    if (end != null && Arrays.compareUnsigned(start, end) >= 0) {
      response.end();
      return;
    }
    storage.openRange(start, end).onComplete(opened -> {
      if (opened.failed()) {
        ApiErrors.fail(ctx, opened.cause());
      } else {
        new RangeStream(storage, response, opened.result()).start();
      }
    });
  }
}
