package io.quorumkv.web;

import io.netty.buffer.ByteBuf;
import io.quorumkv.admission.Admission;
import io.quorumkv.admission.ByteBudget;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;

/**
 * Collects the request body as raw bytes, whatever its Content-Type, up to a limit: 413 when a
 * Content-Length or the bytes received exceed it. vertx-web's BodyHandler is not used because
 * it parses form and multipart content types (curl's default for {@code --data-binary}),
 * which would reject or drop arbitrary values.
 *
 * <p>The body's bytes are held against a {@link ByteBudget} until the answer is sent. A client's
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
  public static final String RETRY_AFTER_SECONDS = "1";
  /**
   * A client's body is on the heap twice at once: itself and its encoding for RocksDB (its
   * copies to other replicas are sent from it, not copied).
   */
  public static final int HEAP_COPIES_PER_BODY = 2;

  private final long limit;
  private final ByteBudget budget;
  /** Null for a peer's requests, which are never refused. */
  private final Admission refusing;

  private RawBodyHandler(long limit, ByteBudget budget, Admission refusing) {
    this.limit = limit;
    this.budget = budget;
    this.refusing = refusing;
  }

  /** For clients' requests: refused with a 503 when the client bodies' budget is full. */
  public static RawBodyHandler forClients(long limit, Admission admission) {
    return new RawBodyHandler(limit, admission.clientBodies(), admission);
  }

  /** For peers' requests: counted in their reserve, never refused. */
  public static RawBodyHandler forPeers(long limit, Admission admission) {
    return new RawBodyHandler(limit, admission.peerBatches(), null);
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
    String declaredText = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    long declared = declaredText == null ? -1 : parseLength(declaredText);
    if (declared > limit) {
      tooLarge(ctx);
      return;
    }
    if (request.isEnded()) {
      // Only possible if a handler before this one deferred: the body is gone, and waiting for it would hang.
      ctx.fail(new IllegalStateException("request body read after the request ended"));
      return;
    }
    long[] held = {0};
    ctx.addEndHandler(ended -> budget.release(held[0]));
    if (declared > 0 && !take(declared, held)) {
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
      } else if (length * HEAP_COPIES_PER_BODY > held[0] && !take(length - held[0] / HEAP_COPIES_PER_BODY, held)) {
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

  /** Holds {@code bytes} more of body against the budget; false (and nothing held) when a client's request does not fit. */
  private boolean take(long bytes, long[] held) {
    long cost = bytes * HEAP_COPIES_PER_BODY;
    if (refusing == null) {
      budget.acquire(cost);
    } else if (!budget.tryAcquire(cost)) {
      return false;
    }
    held[0] += cost;
    return true;
  }

  /** HTTP/1.0 has no interim answers: a 1.0 client that sends the header gets none. */
  private static boolean expectsContinue(HttpServerRequest request) {
    String expect = request.getHeader(HttpHeaders.EXPECT);
    return expect != null && request.version() == HttpVersion.HTTP_1_1
        && HttpHeaders.CONTINUE.toString().equalsIgnoreCase(expect.trim());
  }

  private void busy(RoutingContext ctx) {
    refusing.shed(Admission.Reason.MEMORY);
    ctx.response().putHeader(HttpHeaders.CONNECTION, "close").putHeader(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
    ApiErrors.send(ctx, 503, "overloaded: request bodies in memory are at this node's budget of " + budget.limit()
        + " bytes of heap; retry");
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
