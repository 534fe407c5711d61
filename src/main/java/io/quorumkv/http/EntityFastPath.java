package io.quorumkv.http;

import io.quorumkv.replication.Preconditions;
import io.quorumkv.replication.Quorum;
import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.ContentLength;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.UnreadBodies;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.http.HttpServerRequestInternal;

import java.util.function.LongPredicate;

/**
 * The API's hot path, in front of the router: a GET, PUT or DELETE of {@code /v0/entity} with no
 * condition, a token that grants it (when the node has tokens) and, for a PUT, a small body of
 * declared length, answered without vertx-web's routing context, route matching and per-route
 * handlers. It is another envelope around the same rules: the same token check ({@link ApiTokens}),
 * the same {@link ClientExchange} for admission, bytes held and metrics, the same
 * {@link EntityHandler} reads and writes. Any other request, and any this path would have to refuse
 * (a malformed query, a token refused, admission or the body budget saying no, a value known to be
 * large), goes to the router as it came, before any of its body is read, and is counted
 * ({@link RequestMetrics#leftToRouter}): every refusal before the work begins is the router's.
 */
final class EntityFastPath implements Handler<HttpServerRequest> {
  private final Handler<HttpServerRequest> router;
  private final EntityHandler entity;
  private final ClientExchanges exchanges;
  private final ApiTokens tokens;
  private final long maxBody;

  /** @param maxBody the node's limit on a body ({@code maxBodyBytes}) */
  EntityFastPath(Handler<HttpServerRequest> router, EntityHandler entity, ClientExchanges exchanges, ApiTokens tokens,
                 long maxBody) {
    this.router = router;
    this.entity = entity;
    this.exchanges = exchanges;
    this.tokens = tokens;
    // Only small values: a large one's body is collected in pieces by the router, and its reads go there too.
    this.maxBody = Math.min(maxBody, LargeValueSizes.LARGE_BYTES);
  }

  @Override
  public void handle(HttpServerRequest request) {
    if (!ApiRouter.ENTITY.equals(request.path())) {
      router.handle(request);
    } else if (!hasAuthority(request) || !served(request)) {
      exchanges.metrics.leftToRouter();
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
    if (method != HttpMethod.GET && method != HttpMethod.PUT && method != HttpMethod.DELETE
        || !tokens.grants(request, ApiRouter.entityRole(method))) {
      return false;
    }
    if (method == HttpMethod.GET) {
      return get(request, start);
    }
    return method == HttpMethod.PUT ? put(request, start) : delete(request, start);
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
    if (exchanges.isKnownLarge(key)) {
      return false;
    }
    ClientExchange exchange = exchanges.tryAdmit(request, start, 0);
    if (exchange == null) {
      return false;
    }
    entity.read(exchange, key, quorum, notModified);
    return true;
  }

  private boolean put(HttpServerRequest request, long start) {
    long length;
    byte[] key;
    Quorum quorum;
    long expiresAt;
    try {
      length = ContentLength.of(request);
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
    if (exchanges.tryAdmit(request, start, length) == null) {
      return false;
    }
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
    if (exchanges.tryAdmit(request, start, 0) == null) {
      return false;
    }
    entity.remove(request, key, quorum);
    return true;
  }
}
