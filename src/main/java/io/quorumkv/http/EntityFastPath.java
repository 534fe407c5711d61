package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.admission.ByteBudget;
import io.quorumkv.admission.LoopRequests;
import io.quorumkv.replication.Preconditions;
import io.quorumkv.replication.Quorum;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.UnreadBodies;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.http.HttpServerRequestInternal;

import java.util.function.LongPredicate;

/**
 * The API's hot path, in front of the router: a GET, PUT or DELETE of {@code /v0/entity} with no
 * condition, no token to check and, for a PUT, a small body of declared length, answered without
 * vertx-web's routing context, route matching and per-route handlers. Any other request, and any
 * this path would have to refuse (a malformed query, admission or the body budget saying no, a
 * value known to be large), goes to the router as it came, before any of its body is read: the
 * router's handlers stay the reference for every answer, and this path gives the same answers
 * under the same admission, budgets and metrics.
 */
final class EntityFastPath implements Handler<HttpServerRequest> {
  /** Bodies up to this size are collected here; larger ones take the router's streaming collection. */
  private static final int MAX_BODY_BYTES = 64 * 1024;

  private final Handler<HttpServerRequest> router;
  private final EntityHandler entity;
  private final LargeReads largeReads;
  private final Admission admission;
  private final LoopRequests loop;
  private final ByteBudget bodies;
  private final RequestMetrics metrics;
  private final long maxBody;

  /**
   * @param loop    the in-flight count of this event loop, shared with the router's admission
   * @param maxBody the node's limit on a body ({@code maxBodyBytes})
   */
  EntityFastPath(Handler<HttpServerRequest> router, EntityHandler entity, LargeReads largeReads, Admission admission,
                 LoopRequests loop, RequestMetrics metrics, long maxBody) {
    this.router = router;
    this.entity = entity;
    this.largeReads = largeReads;
    this.admission = admission;
    this.loop = loop;
    this.bodies = admission.clientBodies();
    this.metrics = metrics;
    this.maxBody = Math.min(maxBody, MAX_BODY_BYTES);
  }

  @Override
  public void handle(HttpServerRequest request) {
    if (!ApiRouter.ENTITY.equals(request.path()) || !hasAuthority(request) || !served(request)) {
      router.handle(request);
    }
  }

  /** The router answers 400 to an HTTP/1.1 request without a valid Host, as HTTP/1.1 requires. */
  private static boolean hasAuthority(HttpServerRequest request) {
    return request.version() == HttpVersion.HTTP_1_0 || ((HttpServerRequestInternal) request).isValidAuthority();
  }

  /**
   * Serves the request here, or answers false with nothing done for the router to take it. Only
   * reading the request may throw: once admitted, the request is this path's to answer.
   */
  private boolean served(HttpServerRequest request) {
    long start = System.nanoTime();
    HttpMethod method = request.method();
    if (method == HttpMethod.GET) {
      return get(request, start);
    }
    if (method == HttpMethod.PUT) {
      return put(request, start);
    }
    return method == HttpMethod.DELETE && delete(request, start);
  }

  private boolean get(HttpServerRequest request, long start) {
    byte[] key;
    Quorum quorum;
    LongPredicate notModified;
    try {
      if (UnreadBodies.hasBody(request)) {
        return false;
      }
      notModified = Preconditions.notModifiedOf(request.headers());
      QueryParams params = QueryParams.of(request);
      key = params.requiredKey("id");
      quorum = entity.quorumOf(params);
    } catch (RuntimeException malformed) {
      return false; // the router answers it, as it answers every malformed request
    }
    if (largeReads.isKnownLarge(key) || !admission.tryAdmit(loop)) {
      return false;
    }
    Exchange exchange = new Exchange(request, start, 0);
    entity.read(request, key, quorum, notModified, value -> {
      long held = largeReads.holdValue(request.response(), key, value);
      exchange.held += Math.max(held, 0);
      return held >= 0;
    });
    return true;
  }

  private boolean put(HttpServerRequest request, long start) {
    long length;
    byte[] key;
    Quorum quorum;
    long expiresAt;
    try {
      length = declaredLength(request);
      if (length < 0 || length > maxBody || request.headers().contains(HttpHeaders.EXPECT)
          || Preconditions.ofWrite(request.headers(), true) != null) {
        return false;
      }
      QueryParams params = QueryParams.of(request);
      key = params.requiredKey("id");
      quorum = entity.quorumOf(params);
      expiresAt = entity.expiryOf(params);
    } catch (RuntimeException malformed) {
      return false;
    }
    long bytes = length * RawBodyHandler.HEAP_COPIES_PER_BODY;
    if (!admission.tryAdmit(loop)) {
      return false;
    }
    if (!bodies.tryAcquire(bytes)) {
      loop.finish();
      return false;
    }
    new Exchange(request, start, bytes);
    Buffer body = Buffer.buffer((int) length);
    request.handler(body::appendBuffer);
    // A broken connection ends the exchange through the response's close handler.
    request.exceptionHandler(failure -> { });
    request.endHandler(ended -> entity.write(request, key, RawBodyHandler.bytesOf(body), expiresAt, quorum));
    return true;
  }

  private boolean delete(HttpServerRequest request, long start) {
    byte[] key;
    Quorum quorum;
    try {
      if (UnreadBodies.hasBody(request) || Preconditions.ofWrite(request.headers(), false) != null) {
        return false;
      }
      QueryParams params = QueryParams.of(request);
      key = params.requiredKey("id");
      quorum = entity.quorumOf(params);
    } catch (RuntimeException malformed) {
      return false;
    }
    if (!admission.tryAdmit(loop)) {
      return false;
    }
    new Exchange(request, start, 0);
    entity.remove(request, key, quorum);
    return true;
  }

  /** The Content-Length of a request without Transfer-Encoding; -1 when it has none or it is chunked. */
  private static long declaredLength(HttpServerRequest request) {
    if (request.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
      return -1;
    }
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    return length == null ? 0 : Long.parseLong(length.trim());
  }

  /** A request taken here: in flight, with its bytes held, until its answer ends or its connection closes. */
  private final class Exchange implements Handler<Void> {
    private final HttpServerRequest request;
    private final long start;
    private long held;
    private boolean over;

    Exchange(HttpServerRequest request, long start, long held) {
      this.request = request;
      this.start = start;
      this.held = held;
      HttpServerResponse response = request.response();
      response.endHandler(this);
      response.closeHandler(this);
    }

    @Override
    public void handle(Void ended) {
      if (over) {
        return;
      }
      over = true;
      loop.finish();
      if (held > 0) {
        bodies.release(held);
      }
      metrics.answered(ApiRouter.ENTITY, request.method(), request.response().getStatusCode(),
          System.nanoTime() - start);
    }
  }
}
