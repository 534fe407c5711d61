package io.quorumkv.http;

import io.vertx.core.Handler;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;

/** The router's first route: times each request and tells {@link RequestMetrics} once it is answered. */
final class RequestTiming implements Handler<RoutingContext> {
  private final RequestMetrics metrics;

  RequestTiming(RequestMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long start = System.nanoTime();
    ctx.addEndHandler(ended -> metrics.answered(routeOf(ctx), ctx.request(), start));
    ctx.next();
  }

  /** The route that answered; "" for the catch-all routes (an unknown path, a failure vertx-web raised). */
  private static String routeOf(RoutingContext ctx) {
    Route route = ctx.currentRoute();
    String name = route == null ? null : route.getName();
    return name == null ? "" : name;
  }
}
