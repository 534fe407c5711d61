package io.quorumkv.peer;

import io.quorumkv.web.ApiErrors;
import io.vertx.core.Handler;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Mounts one feature's internal endpoints on a router: each path behind the cluster secret, its
 * handlers on its method, and, once {@link #end} is called, a 405 naming the methods of its path.
 */
public final class PeerRoutes {
  private final Router router;
  private final PeerAuthorization authorization;
  private final Map<String, List<String>> methodsByPath = new LinkedHashMap<>();

  public PeerRoutes(Router router, PeerAuthorization authorization) {
    this.router = router;
    this.authorization = authorization;
  }

  /** Routes the endpoint's method and path through the handlers, in order (a body handler first, say). */
  @SafeVarargs
  public final PeerRoutes add(InternalEndpoint endpoint, Handler<RoutingContext>... handlers) {
    if (!methodsByPath.containsKey(endpoint.path())) {
      router.route(endpoint.path()).handler(authorization);
    }
    methodsByPath.computeIfAbsent(endpoint.path(), path -> new ArrayList<>()).add(endpoint.method().name());
    Route route = router.route(endpoint.method(), endpoint.path());
    for (Handler<RoutingContext> handler : handlers) {
      route.handler(handler);
    }
    return this;
  }

  /** Answers 405 to every other method on the paths added. */
  public void end() {
    methodsByPath.forEach((path, methods) -> router.route(path)
        .handler(ApiErrors.methodNotAllowed(String.join(", ", methods))));
  }
}
