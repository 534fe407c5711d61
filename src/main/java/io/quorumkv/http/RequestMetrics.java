package io.quorumkv.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/** Told of every request the HTTP server answers (the node's request rate and latency series). */
public interface RequestMetrics {
  /**
   * @param route  the name of the route that answered (its path), "" for none
   * @param nanos  from the first route to the end of the response
   */
  void answered(String route, HttpMethod method, int status, long nanos);

  /** A request for {@code /v0/entity} that the fast path left to the router, which answers it (and tells {@link #answered}). */
  void leftToRouter();

  /** The request has been answered: its method and status, and the time since {@code startNanos}. */
  default void answered(String route, HttpServerRequest request, long startNanos) {
    answered(route, request.method(), request.response().getStatusCode(), System.nanoTime() - startNanos);
  }
}
