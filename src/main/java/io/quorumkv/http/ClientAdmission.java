package io.quorumkv.http;

import io.quorumkv.admission.Admission;
import io.quorumkv.admission.LoopRequests;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.UnreadBodies;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * The first handler of a client request on the data routes: admits it, counting it in flight on
 * this event loop until its answer ends, or answers {@code 503} with {@code Retry-After} at once,
 * before any other work and before its body is read. Peers' requests never pass here.
 */
final class ClientAdmission implements Handler<RoutingContext> {
  private final Admission admission;
  private final LoopRequests loop;

  /** @param loop the in-flight count of the event loop whose requests this handler sees */
  ClientAdmission(Admission admission, LoopRequests loop) {
    this.admission = admission;
    this.loop = loop;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Admission.Reason refused = admission.admit(loop);
    if (refused == null) {
      ctx.addEndHandler(ended -> loop.finish());
      ctx.next();
      return;
    }
    UnreadBodies.dropOrClose(ctx);
    ctx.response().putHeader(HttpHeaders.RETRY_AFTER, RawBodyHandler.RETRY_AFTER_SECONDS);
    ApiErrors.send(ctx, 503, switch (refused) {
      case IN_FLIGHT -> "overloaded: " + admission.maxRequestsInFlight()
          + " client requests in flight on this node (admission.maxRequestsPerLoop per event loop); retry";
      case STORAGE -> "overloaded: over " + admission.maxQueuedStorage()
          + " storage requests queued (admission.maxQueuedStorage); retry";
      case MEMORY -> throw new IllegalStateException("bodies are admitted by RawBodyHandler");
    });
  }
}
