package io.quorumkv.http;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.Role;
import io.quorumkv.replication.ClientErrors;
import io.quorumkv.replication.ConditionalForwarder;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RawBodyHandler;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;


/** The public HTTP API (docs/api.md): routes, and the 400/405/413 answers around them. */
public final class ApiRouter {
  static final String ENTITY = "/v0/entity";
  static final String ENTITIES = "/v0/entities";
  static final String STATUS = "/v0/status";
  /** The cluster's state, served by {@code admin.ClusterHandler}; read-role under tokens. */
  public static final String CLUSTER = "/v0/cluster";
  static final String ADMIN = "/admin/*";

  private ApiRouter() {
  }

  /**
   * The request handler of one HTTP verticle: the router, behind {@link EntityFastPath} unless the conf
   * turns it off, with the public API's routes and those the context's mounts add. Call on the verticle's
   * event loop, with that loop's services (their clients stay there).
   */
  public static Handler<HttpServerRequest> create(Vertx vertx, ApiContext api) {
    NodeConfig config = api.config();
    EntityHandler entity = new EntityHandler(api.coordinator(), api.conditionalWrites(),
        new ConditionalForwarder(vertx, config), config.url(), api.query(), api.wallClock(),
        api.admission().largeValues());
    RangeHandler range = new RangeHandler(vertx, api.storage(), api.clusterRange(), api.wallClock());
    Router router = Router.router(vertx);
    router.route().handler(new RequestTiming(api.requests()));
    guard(router, api.tokens());

    ClientExchanges exchanges = new ClientExchanges(api.admission(), api.requests());
    router.route(ENTITY).handler(exchanges);
    router.route(ENTITIES).handler(exchanges);
    router.get(ENTITY).handler(guarded(entity::get));
    router.put(ENTITY).handler(RawBodyHandler.forClients(config.maxBodyBytes(), api.admission(), ClientExchanges::of))
        .handler(guarded(entity::put));
    router.delete(ENTITY).handler(guarded(entity::delete));
    router.route(ENTITY).handler(ApiErrors.methodNotAllowed("GET, PUT, DELETE"));

    router.get(STATUS).handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain").end("OK\n"));
    router.route(STATUS).handler(ApiErrors.methodNotAllowed("GET"));

    router.get(ENTITIES).handler(guarded(range::handle));
    router.route(ENTITIES).handler(ApiErrors.methodNotAllowed("GET"));

    api.mounts().forEach(mount -> mount.mount(router));

    router.route().handler(ctx -> ApiErrors.send(ctx, 400, "unknown path " + ctx.request().path()));
    router.route().failureHandler(ClientErrors::handleRoutingFailure);
    // Failures no route's failure handler saw (vertx-web fails some requests, such as a path it
    // cannot decode, before any route matches) would otherwise get vertx-web's empty answers.
    for (int status : new int[] {400, 404, 405, 413, 414, 415, 431, 500, 501}) {
      router.errorHandler(status, ctx -> ApiErrors.handleUnhandledFailure(ctx, status));
    }
    if (!config.entityFastPath()) {
      return router;
    }
    return new EntityFastPath(router, entity, exchanges, api.tokens(), config.maxBodyBytes());
  }

  /**
   * Who may do what (docs/api.md#authentication): each family of routes and the role its requests
   * need, checked before admission and before any body is read. {@code /v0/status}, {@code /metrics},
   * the dashboard's files and the internal endpoints (behind the cluster secret) need no token.
   * Nothing is mounted when the conf sets no token.
   */
  private static void guard(Router router, ApiTokens tokens) {
    if (!tokens.anyNeeded()) {
      return;
    }
    router.route(ENTITY).handler(tokens.requiring(ApiRouter::entityRole));
    router.route(ENTITIES).handler(tokens.requiring(Role.READ));
    router.route(CLUSTER).handler(tokens.requiring(Role.READ));
    router.route(ADMIN).handler(tokens.requiring(Role.ADMIN));
  }

  /** Writes (conditional ones included) need {@code write}; reads, and methods the path answers 405, {@code read}. */
  static Role entityRole(HttpMethod method) {
    return method == HttpMethod.PUT || method == HttpMethod.DELETE ? Role.WRITE : Role.READ;
  }

  /** Runs the handler, answering any exception it throws while parsing the request. */
  private static Handler<RoutingContext> guarded(Handler<RoutingContext> handler) {
    return ApiErrors.guarded(handler, ClientErrors::fail);
  }
}
