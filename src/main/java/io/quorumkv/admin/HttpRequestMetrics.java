package io.quorumkv.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quorumkv.http.RequestMetrics;
import io.vertx.core.http.HttpMethod;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP server's request rate and latency in the series Vert.x's Micrometer metrics would
 * give them ({@code vertx_http_server_requests_total} and
 * {@code vertx_http_server_response_time_seconds}, by route, method and code), recorded for a
 * fraction of their cost: the meters of a route, method and status are looked up in a map kept
 * here, where Vert.x built tags and asked the registry on every request, and added summaries of
 * the request and response sizes nothing here reads.
 */
final class HttpRequestMetrics implements RequestMetrics {
  /** Request methods kept as label values; any other is counted as {@link #OTHER_METHOD}. */
  static final Set<String> STANDARD_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
      "TRACE", "PATCH");
  static final String OTHER_METHOD = "OTHER";
  static final String REQUESTS = "vertx.http.server.requests";
  static final String RESPONSE_TIME = "vertx.http.server.response.time";

  private final MeterRegistry registry;
  private final ConcurrentHashMap<Labels, Meters> meters = new ConcurrentHashMap<>();
  private final Counter leftToRouter;

  HttpRequestMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.leftToRouter = Counter.builder("quorumkv_entity_requests_routed")
        .description("requests for /v0/entity that the fast path left to the router: conditional, large or chunked"
            + " bodies, values known large, refused or malformed ones")
        .register(registry);
  }

  @Override
  public void leftToRouter() {
    leftToRouter.increment();
  }

  @Override
  public void answered(String route, HttpMethod method, int status, long nanos) {
    String name = method.name();
    Labels labels = new Labels(route, STANDARD_METHODS.contains(name) ? name : OTHER_METHOD, status);
    Meters found = meters.get(labels);
    if (found == null) {
      found = meters.computeIfAbsent(labels, this::register);
    }
    found.requests().increment();
    found.time().record(nanos, TimeUnit.NANOSECONDS);
  }

  private Meters register(Labels labels) {
    String code = Integer.toString(labels.status());
    Counter requests = Counter.builder(REQUESTS).description("requests answered, by route, method and status")
        .tags("route", labels.route(), "method", labels.method(), "code", code).register(registry);
    Timer time = Timer.builder(RESPONSE_TIME).description("time from a request's routing to the end of its response")
        .tags("route", labels.route(), "method", labels.method(), "code", code).register(registry);
    return new Meters(requests, time);
  }

  private record Labels(String route, String method, int status) {
  }

  private record Meters(Counter requests, Timer time) {
  }
}
