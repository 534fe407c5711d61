package io.quorumkv.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;

/**
 * Collects the request body as raw bytes, whatever its Content-Type, up to a limit: 413 when a
 * Content-Length or the bytes received exceed it. vertx-web's BodyHandler is not used because
 * it parses form and multipart content types (curl's default for {@code --data-binary}),
 * which would reject or drop arbitrary values.
 *
 * <p>A request with {@code Expect: 100-continue} gets {@code 100 Continue} once its declared length
 * fits, or the 413 at once without it, so the client neither waits nor uploads in vain.
 */
final class RawBodyHandler implements Handler<RoutingContext> {
  private static final String BODY = "quorumkv.body";

  private final long limit;

  RawBodyHandler(long limit) {
    this.limit = limit;
  }

  /** The body collected for this request. */
  static byte[] bodyOf(RoutingContext ctx) {
    Buffer body = ctx.get(BODY);
    return body == null ? new byte[0] : body.getBytes();
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    String declared = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (declared != null && parseLength(declared) > limit) {
      tooLarge(ctx);
      return;
    }
    if (request.isEnded()) {
      // Only possible if a handler before this one deferred: the body is gone, and waiting for it would hang.
      ctx.fail(new IllegalStateException("request body read after the request ended"));
      return;
    }
    Buffer body = Buffer.buffer();
    boolean[] refused = {false};
    request.handler(chunk -> {
      if (refused[0]) {
        return;
      }
      if (body.length() + (long) chunk.length() > limit) {
        refused[0] = true;
        tooLarge(ctx);
      } else {
        body.appendBuffer(chunk);
      }
    });
    request.endHandler(end -> {
      if (!refused[0]) {
        ctx.put(BODY, body);
        ctx.next();
      }
    });
    request.exceptionHandler(failure -> refused[0] = true);
    if (expectsContinue(request)) {
      ctx.response().writeContinue();
    }
    request.resume();
  }

  /** HTTP/1.0 has no interim answers: a 1.0 client that sends the header gets none. */
  private static boolean expectsContinue(HttpServerRequest request) {
    String expect = request.getHeader(HttpHeaders.EXPECT);
    return expect != null && request.version() == HttpVersion.HTTP_1_1
        && HttpHeaders.CONTINUE.toString().equalsIgnoreCase(expect.trim());
  }

  private void tooLarge(RoutingContext ctx) {
    ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
    ApiErrors.send(ctx, 413, "request body exceeds the limit of " + limit + " bytes");
  }

  private static long parseLength(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
