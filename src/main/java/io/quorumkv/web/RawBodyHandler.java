package io.quorumkv.web;

import io.netty.buffer.ByteBuf;
import io.quorumkv.admission.Admission;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;

import java.util.function.Function;

/**
 * Collects the request body as raw bytes, whatever its Content-Type, up to a limit: 413 when a
 * Content-Length or the bytes received exceed it. vertx-web's BodyHandler is not used because
 * it parses form and multipart content types (curl's default for {@code --data-binary}),
 * which would reject or drop arbitrary values.
 *
 * <p>The body's bytes are held ({@link HeldBytes}) until the answer is sent. A client's
 * request that would pass its budget gets {@code 503} with {@code Retry-After} before any of its
 * body is read (and the connection closes, as the body is not wanted); a peer's is taken whatever
 * the budget ({@link Admission#peerBatches}), since another node already admitted it.
 *
 * <p>A request with {@code Expect: 100-continue} gets {@code 100 Continue} once its declared length
 * fits the limit and the budget, or the 413 or 503 at once without it, so the client neither
 * waits nor uploads in vain.
 */
public final class RawBodyHandler implements Handler<RoutingContext> {
  private static final String BODY = "quorumkv.body";

  private final long limit;
  private final Function<RoutingContext, HeldBytes> holds;
  /** Null for a peer's requests, which are never refused. */
  private final Admission refusing;

  private RawBodyHandler(long limit, Function<RoutingContext, HeldBytes> holds, Admission refusing) {
    this.limit = limit;
    this.holds = holds;
    this.refusing = refusing;
  }

  /** For clients' requests: refused with a 503 when the client bodies' budget is full. */
  public static RawBodyHandler forClients(long limit, Admission admission) {
    return new RawBodyHandler(limit, ctx -> heldUntilEnd(ctx, new HeldBytes(admission.clientBodies(), true)),
        admission);
  }

  /**
   * For clients' requests whose admission gave them what they hold until their answer ends
   * ({@code holdOf}): their body is held there, with whatever else they hold.
   */
  public static RawBodyHandler forClients(long limit, Admission admission, Function<RoutingContext, HeldBytes> holdOf) {
    return new RawBodyHandler(limit, holdOf, admission);
  }

  /** For peers' requests: counted in their reserve, never refused. */
  public static RawBodyHandler forPeers(long limit, Admission admission) {
    return new RawBodyHandler(limit, ctx -> heldUntilEnd(ctx, new HeldBytes(admission.peerBatches(), false)), null);
  }

  private static HeldBytes heldUntilEnd(RoutingContext ctx, HeldBytes held) {
    ctx.addEndHandler(ended -> held.release());
    return held;
  }

  /** The body collected for this request: the buffer's own array when it is exactly the body (a large value is not copied). */
  public static byte[] bodyOf(RoutingContext ctx) {
    Buffer body = ctx.get(BODY);
    return body == null ? new byte[0] : bytesOf(body);
  }

  /** The buffer's bytes: its own array when it is exactly them (a large value is not copied). */
  public static byte[] bytesOf(Buffer body) {
    ByteBuf bytes = ((BufferInternal) body).getByteBuf();
    if (bytes.hasArray() && bytes.arrayOffset() + bytes.readerIndex() == 0 && bytes.array().length == body.length()) {
      return bytes.array();
    }
    return body.getBytes();
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    long declared = ContentLength.of(request);
    if (declared > limit) {
      tooLarge(ctx);
      return;
    }
    if (request.isEnded()) {
      // Only possible if a handler before this one deferred: the body is gone, and waiting for it would hang.
      ctx.fail(new IllegalStateException("request body read after the request ended"));
      return;
    }
    HeldBytes held = holds.apply(ctx);
    if (declared > 0 && !held.holdBody(declared)) {
      busy(ctx);
      return;
    }
    Buffer body = declared > 0 ? Buffer.buffer((int) declared) : Buffer.buffer();
    boolean[] refused = {false};
    request.handler(chunk -> {
      if (refused[0]) {
        return;
      }
      long length = body.length() + (long) chunk.length();
      if (length > limit) {
        refused[0] = true;
        tooLarge(ctx);
      } else if (!held.holdBody(length)) {
        refused[0] = true;
        busy(ctx);
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

  private void busy(RoutingContext ctx) {
    ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
    OverloadAnswer.refuse(ctx.response(), refusing, Admission.Reason.MEMORY);
  }

  private void tooLarge(RoutingContext ctx) {
    ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
    ApiErrors.send(ctx, 413, "request body exceeds the limit of " + limit + " bytes");
  }
}
