package io.quorumkv.admin;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.EveryNode;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.ApiTokens;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The admin endpoints for JFR recording sessions, under {@code /admin/jfr}; the router lets on
 * only admin tokens when the conf sets tokens ({@link ApiTokens}). {@code scope=cluster} on start and
 * stop checks the command, runs it here and sends it to every other node of the topology through
 * {@link InternalEndpoint#JFR_COMMAND}: behind the cluster secret and mutual TLS, with no client
 * token, which never leaves the node it was given to.
 * Query parameters are read on the event loop (a malformed one is a 400 at once); the blocking
 * work runs on two named worker pools of their own, unordered: quick commands (list, start, stop)
 * on one, file dumps and flame-graph conversions (seconds each) on the other, so a queue of
 * conversions never delays a list or a stop. See docs/profiling.md.
 */
public final class AdminApi implements RouteMount {
  public static final String PATH = "/admin/jfr";
  /** Each admin path with the methods it takes, for the 405's Allow header. */
  private static final Map<String, String> ALLOWED = Map.of(
      PATH, "GET, POST", PATH + "/stop", "POST", PATH + "/file", "GET", PATH + "/flame", "GET");
  private static final System.Logger LOG = System.getLogger(AdminApi.class.getName());
  private static final long DEFAULT_DURATION_MS = 60_000;
  private static final long MAX_DURATION_MS = 3_600_000;
  static final String COMMAND_POOL = "quorumkv-jfr-commands";
  static final String EXPORT_POOL = "quorumkv-jfr-exports";
  private static final int COMMAND_THREADS = 2;
  private static final int EXPORT_THREADS = 2;
  /** A conversion of a large recording takes a while; past this the blocked-thread checker warns. */
  private static final long MAX_EXPORT_MINUTES = 10;

  private final Vertx vertx;
  private final NodeConfig config;
  private final JfrRecordings recordings;
  private final PeerAuthorization peers;
  private final Supplier<Collection<NodeUrl>> nodes;
  private final WorkerExecutor commands;
  private final WorkerExecutor exports;

  /** @param nodes the nodes of the topology in force, which a cluster command goes to */
  public AdminApi(Vertx vertx, NodeConfig config, JfrRecordings recordings, PeerAuthorization peers,
                  Supplier<Collection<NodeUrl>> nodes) {
    this.vertx = vertx;
    this.config = config;
    this.recordings = recordings;
    this.peers = peers;
    this.nodes = nodes;
    this.commands = vertx.createSharedWorkerExecutor(COMMAND_POOL, COMMAND_THREADS);
    this.exports = vertx.createSharedWorkerExecutor(EXPORT_POOL, EXPORT_THREADS, MAX_EXPORT_MINUTES, TimeUnit.MINUTES);
  }

  @Override
  public void mount(Router router) {
    new PeerRoutes(router, peers, this).add(InternalEndpoint.JFR_COMMAND, this::commandFromANode).end();
    // Exact paths only: anything else under /admin falls through to the router's "unknown path" 400.
    router.post(PATH).handler(ctx -> command(ctx, "start", 201));
    router.get(PATH).handler(ctx -> commands.executeBlocking(() -> {
      JsonArray list = new JsonArray();
      recordings.list().forEach(info -> list.add(info.toJson()));
      return list.encodePrettily();
    }, false).onComplete(done -> {
      if (done.failed()) {
        fail(ctx, done.cause());
      } else {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(done.result());
      }
    }));
    router.post(PATH + "/stop").handler(ctx -> command(ctx, "stop", 200));
    router.get(PATH + "/file").handler(ctx -> withParams(ctx, params -> export(ctx,
        () -> recordings.file(params.get("name")), "application/octet-stream")));
    router.get(PATH + "/flame").handler(ctx -> withParams(ctx, params -> export(ctx,
        () -> recordings.flameGraph(params.get("name"), FlameKind.of(params.get("type"))), "text/html; charset=utf-8")));
    ALLOWED.forEach((path, methods) -> router.route(path).handler(ApiErrors.methodNotAllowed(methods)));
  }

  /** A cluster command another node (or this one) checked and sent: it runs here as it is. */
  private void commandFromANode(RoutingContext ctx) {
    ctx.request().body().compose(body -> run(body.toJsonObject())).onComplete(done -> {
      if (done.failed()) {
        fail(ctx, done.cause());
      } else {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(done.result().toJson().encode());
      }
    });
  }

  /**
   * Calls {@code handler} with the request's query parameters, decoded here on the event loop;
   * answers 400 when they cannot be (a malformed percent-escape).
   */
  private static void withParams(RoutingContext ctx, Consumer<MultiMap> handler) {
    MultiMap params;
    try {
      params = ctx.queryParams();
    } catch (HttpException | IllegalArgumentException e) {
      ApiErrors.send(ctx, 400, "malformed query string (bad percent-encoding)");
      return;
    }
    handler.accept(params);
  }

  /** Sends the file made on the export pool, and deletes it once sent (or the send failed). */
  private void export(RoutingContext ctx, Callable<JfrRecordings.Export> make, String type) {
    exports.executeBlocking(make, false).onComplete(done -> {
      if (done.failed()) {
        fail(ctx, done.cause());
        return;
      }
      JfrRecordings.Export export = done.result();
      if (ctx.response().closed()) {
        // The client left while the file was made. Vert.x's sendFile would throw on the closed connection.
        vertx.fileSystem().delete(export.path().toString());
        return;
      }
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, type);
      if (type.equals("application/octet-stream")) {
        ctx.response().putHeader("Content-Disposition", "attachment; filename=\"" + export.name() + "\"");
      }
      ctx.response().sendFile(export.path().toString())
          .onComplete(sent -> vertx.fileSystem().delete(export.path().toString()));
    });
  }

  /** Start or stop, here or (scope=cluster) on every node. */
  private void command(RoutingContext ctx, String action, int status) {
    withParams(ctx, params -> command(ctx, params, action, status));
  }

  private void command(RoutingContext ctx, MultiMap params, String action, int status) {
    JsonObject command = new JsonObject().put("action", action)
        .put("name", params.get("name"))
        .put("durationMs", params.get("duration"))
        .put("settings", params.get("settings"));
    String scope = params.get("scope");
    if ("cluster".equals(scope)) {
      // Checked here, before publishing: a node that cannot run the command only logs why.
      commands.executeBlocking(() -> checked(command), false).onComplete(done -> {
        if (done.failed()) {
          fail(ctx, done.cause());
        } else {
          publish(done.result());
          ctx.response().setStatusCode(202).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
              .end(new JsonObject().put("published", done.result()).encodePrettily());
        }
      });
      return;
    }
    if (scope != null && !"node".equals(scope)) {
      ApiErrors.send(ctx, 400, "scope must be 'node' or 'cluster'");
      return;
    }
    run(command).onComplete(done -> {
      if (done.failed()) {
        fail(ctx, done.cause());
      } else {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
            .end(done.result().toJson().encodePrettily());
      }
    });
  }

  /** Sends the command to every node; one that cannot run it (or cannot be reached) is logged here. */
  private void publish(JsonObject command) {
    String action = command.getString("action");
    EveryNode.<Void>ask(vertx, config, InternalEndpoint.JFR_COMMAND, nodes.get(), () -> run(command).mapEmpty(),
        (client, node) -> client.webRequest(InternalEndpoint.JFR_COMMAND, node, null).sendJsonObject(command)
            .compose(answer -> answer.statusCode() == 200 ? Future.<Void>succeededFuture()
                : Future.failedFuture(answer.statusCode() + " " + answer.bodyAsString())))
        .forEach((node, sent) -> sent.onFailure(e -> LOG.log(System.Logger.Level.WARNING, "cluster JFR command "
            + action + (node.equals(config.url()) ? " failed here: " : " on " + node + " failed: ") + e.getMessage())));
  }


  /**
   * The command with its parameters checked and its defaults filled in: a start's duration as a
   * number of milliseconds and its settings by name (blocking: settings are read from the JDK).
   */
  private static JsonObject checked(JsonObject command) {
    String action = command.getString("action");
    JsonObject checked = new JsonObject().put("action", action)
        .put("name", JfrRecordings.checkName(command.getString("name")));
    if ("stop".equals(action)) {
      return checked;
    }
    String settings = Objects.requireNonNullElse(command.getString("settings"), "profile");
    JfrRecordings.settings(settings);
    return checked.put("durationMs", durationOf(command.getValue("durationMs"))).put("settings", settings);
  }

  private Future<JfrRecordings.Info> run(JsonObject command) {
    return commands.executeBlocking(() -> {
      JsonObject checked = checked(command);
      String name = checked.getString("name");
      if ("stop".equals(checked.getString("action"))) {
        return recordings.stop(name);
      }
      return recordings.start(name, Duration.ofMillis(checked.getLong("durationMs")), checked.getString("settings"));
    }, false);
  }

  /** A duration given as a query parameter (text) or in a published command (a number, or text from older nodes). */
  private static long durationOf(Object given) {
    if (given == null) {
      return DEFAULT_DURATION_MS;
    }
    try {
      long ms = given instanceof Number number ? number.longValue() : Long.parseLong(given.toString());
      if (ms > 0 && ms <= MAX_DURATION_MS) {
        return ms;
      }
    } catch (NumberFormatException ignored) {
      // answered below
    }
    throw new IllegalArgumentException("duration must be 1 to " + MAX_DURATION_MS + " milliseconds, got '" + given + "'");
  }

  private static void fail(RoutingContext ctx, Throwable failure) {
    ApiErrors.failCommand(ctx, failure, "JFR operation failed");
  }

}
