package io.quorumkv.web;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The body of a request refused before any of it was read (by admission, or for its token): a
 * small one of known length is read and dropped, so its connection stays open for the next
 * request; with any other the connection is closed once the answer is sent, so the body is never read.
 */
public final class UnreadBodies {
  /** A refused request's body up to this size is read and dropped, so its connection stays open. */
  public static final long DRAINED_BODY_BYTES = 64 * 1024;

  private UnreadBodies() {
  }

  /** Call before answering the refused request. */
  public static void dropOrClose(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    if (request.isEnded() || !hasBody(request)) {
      return;
    }
    if (worthDraining(request)) {
      request.handler(dropped -> { }).resume();
    } else {
      // The header alone leaves the connection open, waiting on a body nobody reads, until the idle timeout.
      ctx.response().putHeader(HttpHeaders.CONNECTION, "close").endHandler(sent -> request.connection().close());
    }
  }

  /** Whether a body follows the head: a length above zero, or chunks. */
  public static boolean hasBody(HttpServerRequest request) {
    return ContentLength.of(request) != 0;
  }

  /** A small body of known length, whose client is not waiting for 100 Continue before sending it. */
  private static boolean worthDraining(HttpServerRequest request) {
    long length = ContentLength.of(request);
    return length > 0 && length <= DRAINED_BODY_BYTES && request.getHeader(HttpHeaders.EXPECT) == null;
  }
}
