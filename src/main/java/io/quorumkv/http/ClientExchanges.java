package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.admission.LoopRequests;
import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.web.OverloadAnswer;
import io.quorumkv.web.UnreadBodies;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Where the client requests of one event loop's data routes begin: each admitted one, counted in
 * flight on the loop, gets the {@link ClientExchange} that holds its bytes until its answer ends.
 * On the router it is the first handler of the data routes and answers a refusal with the
 * {@link OverloadAnswer}, before any other work and before the body is read; {@link EntityFastPath}
 * asks it directly and leaves a refusal to the router. Peers' requests never pass here. Used on its
 * event loop only.
 */
final class ClientExchanges implements Handler<RoutingContext> {
  private static final String EXCHANGE = "quorumkv.clientExchange";

  final Admission admission;
  final LoopRequests loop;
  final LargeValueSizes sizes;
  final RequestMetrics metrics;

  /** @param metrics told of the fast path's requests (the router's first route times its own) */
  ClientExchanges(Admission admission, RequestMetrics metrics) {
    this.admission = admission;
    this.loop = admission.newLoop();
    this.sizes = admission.largeValues();
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Admission.Reason refused = admission.admit(loop);
    if (refused != null) {
      UnreadBodies.dropOrClose(ctx);
      OverloadAnswer.refuse(ctx.response(), admission, refused);
      return;
    }
    ClientExchange exchange = new ClientExchange(this, ctx.request(), ClientExchange.TIMED_BY_ROUTER);
    ctx.put(EXCHANGE, exchange);
    ctx.addEndHandler(ended -> exchange.handle(null));
    ctx.next();
  }

  /** The exchange of a request the router admitted. */
  static ClientExchange of(RoutingContext ctx) {
    return ctx.get(EXCHANGE);
  }

  /**
   * For the fast path: the exchange of the request, ending with its answer or its connection and
   * timed from {@code start}, or null, with nothing counted or answered, when the node's bounds (or,
   * for a body of {@code bodyBytes}, the client budget) refuse it.
   */
  ClientExchange tryAdmit(HttpServerRequest request, long start, long bodyBytes) {
    if (admission.admit(loop) != null) {
      return null;
    }
    ClientExchange exchange = new ClientExchange(this, request, start);
    if (bodyBytes > 0 && !exchange.holdBody(bodyBytes)) {
      loop.finish();
      return null;
    }
    exchange.endWithAnswer();
    return exchange;
  }

  /** Whether the key's value is known large, so that a read of it holds its bytes before it starts. */
  boolean isKnownLarge(byte[] key) {
    return sizes.sizeOf(key) != 0;
  }
}
