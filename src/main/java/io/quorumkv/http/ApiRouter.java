package io.quorumkv.http;

import io.quorumkv.replication.Coordinator;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.InstantSource;

/** The public HTTP API (SPEC.md, "HTTP API"): routes, and the 400/405/413 answers around them. */
public final class ApiRouter {
  static final String ENTITY = "/v0/entity";
  static final String ENTITIES = "/v0/entities";
  static final String STATUS = "/v0/status";

  private ApiRouter() {
  }

  public static Router create(Vertx vertx, Coordinator coordinator, StorageService storage, int clusterSize,
                              long maxBodyBytes, InstantSource wallClock) {
    EntityHandler entity = new EntityHandler(coordinator, clusterSize, wallClock);
    RangeHandler range = new RangeHandler(storage);
    Router router = Router.router(vertx);

    router.get(ENTITY).handler(guarded(entity::get));
    router.put(ENTITY).handler(BodyHandler.create(false).setBodyLimit(maxBodyBytes)).handler(guarded(entity::put));
    router.delete(ENTITY).handler(guarded(entity::delete));
    router.route(ENTITY).handler(methodNotAllowed("GET, PUT, DELETE"));

    router.get(STATUS).handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain").end("OK\n"));
    router.route(STATUS).handler(methodNotAllowed("GET"));

    router.get(ENTITIES).handler(guarded(range::handle));
    router.route(ENTITIES).handler(methodNotAllowed("GET"));

    router.route().handler(ctx -> ApiErrors.send(ctx, 400, "unknown path " + ctx.request().path()));
    router.route().failureHandler(ApiErrors::handleRoutingFailure);
    return router;
  }

  /** Runs the handler, answering any exception it throws while parsing the request. */
  private static Handler<RoutingContext> guarded(Handler<RoutingContext> handler) {
    return ctx -> {
      try {
        handler.handle(ctx);
      } catch (RuntimeException e) {
        ApiErrors.fail(ctx, e);
      }
    };
  }

  private static Handler<RoutingContext> methodNotAllowed(String allowed) {
    return ctx -> {
      ctx.response().putHeader(HttpHeaders.ALLOW, allowed);
      HttpMethod method = ctx.request().method();
      ApiErrors.send(ctx, 405, "method " + method.name() + " not allowed on " + ctx.request().path()
          + "; allowed: " + allowed);
    };
  }
}
