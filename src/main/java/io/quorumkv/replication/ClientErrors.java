package io.quorumkv.replication;

import io.quorumkv.versioning.ClockException;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * The answers to the failures of coordinating a client's request, by the public API and by a key's first
 * replica for a forwarded conditional write alike; the rest are {@link ApiErrors}'.
 */
public final class ClientErrors {
  private static final System.Logger LOG = System.getLogger(ClientErrors.class.getName());
  public static final String NOT_ENOUGH_REPLICAS = "Not Enough Replicas";

  private ClientErrors() {
  }

  /** Answers 504 Not Enough Replicas (SPEC's name for it, not "Gateway Timeout"). */
  public static void sendNotEnoughReplicas(RoutingContext ctx, String message) {
    sendNotEnoughReplicas(ctx.response(), message);
  }

  private static void sendNotEnoughReplicas(HttpServerResponse response, String message) {
    response.setStatusMessage(NOT_ENOUGH_REPLICAS);
    ApiErrors.send(response, 504, message);
  }

  /** Answers a failure of a client request: the coordination failures here, the rest as {@link ApiErrors#fail}. */
  public static void fail(RoutingContext ctx, Throwable failure) {
    fail(ctx.request(), failure);
  }

  /** As {@link #fail(RoutingContext, Throwable)}, for a request answered outside the router. */
  public static void fail(HttpServerRequest request, Throwable failure) {
    HttpServerResponse response = request.response();
    if (failure instanceof InvalidQuorumException) {
      ApiErrors.send(response, 400, failure.getMessage());
    } else if (failure instanceof NotEnoughReplicasException notEnough && notEnough.diskFull()) {
      ApiErrors.send(response, 507, "insufficient storage: " + failure.getMessage());
    } else if (failure instanceof NotEnoughReplicasException) {
      sendNotEnoughReplicas(response, "not enough replicas: " + failure.getMessage());
    } else if (failure instanceof ConditionFailedException conditionFailed) {
      if (conditionFailed.currentVersion() != null) {
        response.putHeader(ApiHeaders.VERSION, Long.toString(conditionFailed.currentVersion()))
            .putHeader(ApiHeaders.ETAG, Preconditions.entityTag(conditionFailed.currentVersion()));
      }
      ApiErrors.send(response, 412, "precondition failed: " + failure.getMessage());
    } else if (failure instanceof KeyLocks.LockWaitTimeoutException) {
      ApiErrors.send(response, 503, "busy: " + failure.getMessage());
    } else if (failure instanceof SerializerMovingException) {
      response.putHeader(HttpHeaders.RETRY_AFTER, "1");
      ApiErrors.send(response, 503, "moving: " + failure.getMessage());
    } else if (failure instanceof WriteSupersededException) {
      ApiErrors.send(response, 503, "write not placed above newer versions: " + failure.getMessage());
    } else if (failure instanceof ClockException) {
      LOG.log(System.Logger.Level.WARNING, "clock refusal on " + request.uri() + ": " + failure.getMessage());
      ApiErrors.send(response, 503, "clock: " + failure.getMessage());
    } else {
      ApiErrors.fail(request, failure);
    }
  }

  /** The router's last word on a failed context: a status set by vertx-web (413, 405...) or an exception. */
  public static void handleRoutingFailure(RoutingContext ctx) {
    if (ctx.failure() != null && ctx.statusCode() < 400) {
      fail(ctx, ctx.failure());
      return;
    }
    ApiErrors.handleUnhandledFailure(ctx, ctx.statusCode());
  }
}
