package io.quorumkv.http;

import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.web.HeldBytes;
import io.quorumkv.web.OverloadAnswer;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One admitted client request on the data routes, on either path, until its answer ends or its
 * connection closes: counted in flight on its event loop, holding its body's or a large value's
 * bytes against the client budget, and, on the fast path, timed into the request metrics (the
 * router's first route times its own). A large value read holds its bytes while the client reads
 * the answer, which a slow client makes last; one known large is held before the read, one not
 * known yet once read. Used on its event loop only.
 */
final class ClientExchange extends HeldBytes implements Handler<Void> {
  /** The start of an exchange the router's {@link RequestTiming} times. */
  static final long TIMED_BY_ROUTER = Long.MIN_VALUE;
  /** A value read is on the heap twice until its answer is sent: itself and the copy the coordinator decoded it from. */
  private static final int HEAP_COPIES_PER_VALUE = 2;

  private final ClientExchanges exchanges;
  private final HttpServerRequest request;
  private final long start;
  private boolean over;

  ClientExchange(ClientExchanges exchanges, HttpServerRequest request, long start) {
    super(exchanges.admission.clientBodies(), true);
    this.exchanges = exchanges;
    this.request = request;
    this.start = start;
  }

  HttpServerRequest request() {
    return request;
  }

  /** Ends the exchange with the response (outside the router, which ends it itself). */
  void endWithAnswer() {
    HttpServerResponse response = request.response();
    response.endHandler(this);
    response.closeHandler(this);
  }

  /** Before the read: holds the bytes of the key's value if it is known large; false once the 503 is sent. */
  boolean holdKnownValue(byte[] key) {
    int known = exchanges.sizes.sizeOf(key);
    return known == 0 || holdValueBytes(known);
  }

  /** After the read: notes the value's size and holds what a large one needs; false once the 503 is sent. */
  boolean holdValue(byte[] key, byte[] value) {
    int bytes = value == null ? 0 : value.length;
    exchanges.sizes.observe(key, bytes);
    return !LargeValueSizes.isLarge(bytes) || holdValueBytes(bytes);
  }

  private boolean holdValueBytes(long valueBytes) {
    if (holdUpTo(valueBytes * HEAP_COPIES_PER_VALUE)) {
      return true;
    }
    OverloadAnswer.refuseValue(request.response(), exchanges.admission);
    return false;
  }

  /** The answer ended or the connection closed: whichever comes first ends the exchange. */
  @Override
  public void handle(Void ended) {
    if (over) {
      return;
    }
    over = true;
    exchanges.loop.finish();
    release();
    if (start != TIMED_BY_ROUTER) {
      exchanges.metrics.answered(ApiRouter.ENTITY, request, start);
    }
  }
}
