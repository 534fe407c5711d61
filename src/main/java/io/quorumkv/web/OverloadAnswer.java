package io.quorumkv.web;

import io.quorumkv.admission.Admission;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/**
 * The one answer to a client request refused because the node is at one of its bounds: counted by
 * its reason, then {@code 503} with {@code Retry-After} and a text saying which bound
 * (docs/api.md#entities-v0entity), before the request's work begins or once its value would not fit.
 */
public final class OverloadAnswer {
  /** How long a refused client should wait before it sends again. */
  public static final String RETRY_AFTER_SECONDS = "1";

  private OverloadAnswer() {
  }

  /** A request the node's bound of requests in flight or of queued storage work refused. */
  public static void refuse(HttpServerResponse response, Admission admission, Admission.Reason reason) {
    send(response, admission, reason, switch (reason) {
      case IN_FLIGHT -> admission.maxRequestsInFlight()
          + " client requests in flight on this node (admission.maxRequestsPerLoop per event loop)";
      case STORAGE -> "over " + admission.maxQueuedStorage() + " storage requests queued (admission.maxQueuedStorage)";
      case MEMORY -> "request bodies in memory are at this node's budget of " + admission.clientBodies().limit()
          + " bytes of heap";
    });
  }

  /** A read whose large value would pass the client budget while its answer is sent. */
  public static void refuseValue(HttpServerResponse response, Admission admission) {
    send(response, admission, Admission.Reason.MEMORY, "values and request bodies in memory are at this node's budget of "
        + admission.clientBodies().limit() + " bytes of heap");
  }

  private static void send(HttpServerResponse response, Admission admission, Admission.Reason reason, String bound) {
    admission.shed(reason);
    response.putHeader(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
    ApiErrors.send(response, 503, "overloaded: " + bound + "; retry");
  }
}
