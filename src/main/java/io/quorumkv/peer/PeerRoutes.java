package io.quorumkv.peer;

import io.quorumkv.web.ApiErrors;
import io.vertx.core.Handler;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mounts one handler's internal endpoints on a router: each path behind the cluster secret, its
 * handlers on its method, and, once {@link #end} is called, a 405 naming the methods of its path.
 * It records the class of the handler that answers each endpoint ({@link #answeredBy}): one class
 * per endpoint, mounted once per router, else the mount fails.
 */
public final class PeerRoutes {
  /** Which class answers each endpoint: a fact of the code, the same for every node of the JVM. */
  private static final Map<InternalEndpoint, Class<?>> ANSWERED_BY = new ConcurrentHashMap<>();
  private static final String MOUNTED = PeerRoutes.class.getName() + ".mounted";

  private final Router router;
  private final PeerAuthorization authorization;
  private final Class<?> handler;
  private final Map<String, List<String>> methodsByPath = new LinkedHashMap<>();

  /** @param handler the object whose methods answer the endpoints added (its class is what the table shows) */
  public PeerRoutes(Router router, PeerAuthorization authorization, Object handler) {
    this.router = router;
    this.authorization = authorization;
    this.handler = handler.getClass();
  }

  /** The class whose handler answers the endpoint, once a node mounted it. */
  public static Optional<Class<?>> answeredBy(InternalEndpoint endpoint) {
    return Optional.ofNullable(ANSWERED_BY.get(endpoint));
  }

  /** Routes the endpoint's method and path through the handlers, in order (a body handler first, say). */
  @SafeVarargs
  public final PeerRoutes add(InternalEndpoint endpoint, Handler<RoutingContext>... handlers) {
    record(endpoint);
    if (!methodsByPath.containsKey(endpoint.path())) {
      router.route(endpoint.path()).handler(authorization);
    }
    methodsByPath.computeIfAbsent(endpoint.path(), path -> new ArrayList<>()).add(endpoint.method().name());
    Route route = router.route(endpoint.method(), endpoint.path());
    for (Handler<RoutingContext> each : handlers) {
      route.handler(each);
    }
    return this;
  }

  /** Answers 405 to every other method on the paths added. */
  public void end() {
    methodsByPath.forEach((path, methods) -> router.route(path)
        .handler(ApiErrors.methodNotAllowed(String.join(", ", methods))));
  }

  private void record(InternalEndpoint endpoint) {
    Set<InternalEndpoint> mounted = router.getMetadata(MOUNTED);
    if (mounted == null) {
      mounted = EnumSet.noneOf(InternalEndpoint.class);
      router.putMetadata(MOUNTED, mounted);
    }
    if (!mounted.add(endpoint)) {
      throw new IllegalStateException(endpoint + " is mounted twice on one router");
    }
    Class<?> before = ANSWERED_BY.putIfAbsent(endpoint, handler);
    if (before != null && before != handler) {
      throw new IllegalStateException(endpoint + " is answered by " + before.getName() + " and " + handler.getName());
    }
  }
}
