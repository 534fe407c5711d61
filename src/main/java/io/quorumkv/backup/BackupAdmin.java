package io.quorumkv.backup;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.config.TlsConfig;
import io.quorumkv.web.TlsOptions;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code /admin/backup} (docs/api.md#backup-and-restore), for admin tokens: {@code POST} takes a
 * backup of this node ({@code scope=cluster}: of every node of the topology at once, each asked over
 * HTTP with the same name and token), {@code GET} lists this node's backups, {@code DELETE ?name=N}
 * deletes one. Backups run on a worker pool of their own, one at a time, never on the storage workers.
 */
public final class BackupAdmin implements RouteMount {
  public static final String PATH = "/admin/backup";
  private static final String POOL = "quorumkv-backups";
  /** Long enough for the checkpoint, the count and the checksums of a large store. */
  private static final long MAX_BACKUP_MINUTES = 30;
  private static final long NODE_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(MAX_BACKUP_MINUTES);

  private final NodeBackups backups;
  private final Supplier<List<NodeUrl>> members;
  private final WorkerExecutor worker;
  private final HttpClient client;
  private final boolean secure;

  /**
   * @param members the nodes of the topology in force, which a cluster backup asks
   * @param tls     how to reach them under TLS (with this node's certificate), null for plain HTTP
   */
  public BackupAdmin(Vertx vertx, NodeBackups backups, Supplier<List<NodeUrl>> members, TlsConfig tls) {
    this.backups = backups;
    this.members = members;
    this.secure = tls != null;
    this.worker = vertx.createSharedWorkerExecutor(POOL, 1, MAX_BACKUP_MINUTES, TimeUnit.MINUTES);
    HttpClientOptions options = new HttpClientOptions().setConnectTimeout(5_000);
    this.client = vertx.createHttpClient(secure ? TlsOptions.secure(options, tls) : options);
  }

  @Override
  public void mount(Router router) {
    router.post(PATH).handler(ApiErrors.guarded(this::take));
    router.get(PATH).handler(ctx -> answer(ctx, 200, () -> new JsonArray(backups.list().stream()
        .map(BackupManifest::toJson).toList())));
    router.delete(PATH).handler(ApiErrors.guarded(ctx -> {
      String name = QueryParams.of(ctx).optional("name");
      blocking(() -> {
        backups.delete(name);
        return null;
      }).onComplete(done -> {
        if (done.failed()) {
          fail(ctx, done.cause());
        } else {
          ctx.response().setStatusCode(204).end();
        }
      });
    }));
    router.route(PATH).handler(ApiErrors.methodNotAllowed("GET, POST, DELETE"));
  }

  private void take(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    String scope = params.optional("scope");
    if (scope != null && !scope.equals("node") && !scope.equals("cluster")) {
      ApiErrors.send(ctx, 400, "scope must be 'node' or 'cluster'");
      return;
    }
    String given = params.optional("name");
    String name;
    try {
      name = given == null ? backups.defaultName() : NodeBackups.checkName(given);
    } catch (IllegalArgumentException e) {
      ApiErrors.send(ctx, 400, e.getMessage());
      return;
    }
    if ("cluster".equals(scope)) {
      takeEverywhere(ctx, name);
    } else {
      answer(ctx, 201, () -> backups.take(name).toJson());
    }
  }

  /** Asks every node of the topology at once; 201 when every one took its backup, else 502, with each node's answer. */
  private void takeEverywhere(RoutingContext ctx, String name) {
    String authorization = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
    List<NodeUrl> nodes = members.get();
    List<Future<JsonObject>> answers = new ArrayList<>();
    for (NodeUrl node : nodes) {
      answers.add(askNode(node, name, authorization).recover(failure -> Future.succeededFuture(new JsonObject()
          .put("node", node.toString()).put("error", failure.getMessage()))));
    }
    Future.all(answers).onComplete(all -> {
      JsonArray results = new JsonArray();
      boolean everyOne = true;
      for (Future<JsonObject> answer : answers) {
        results.add(answer.result());
        everyOne &= !answer.result().containsKey("error");
      }
      ctx.response().setStatusCode(everyOne ? 201 : 502).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
          .end(new JsonObject().put("name", name).put("nodes", results).encodePrettily());
    });
  }

  private Future<JsonObject> askNode(NodeUrl node, String name, String authorization) {
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(node.withScheme(secure) + PATH + "?scope=node&name="
        + URLEncoder.encode(name, StandardCharsets.UTF_8)).setIdleTimeout(NODE_TIMEOUT_MS);
    if (authorization != null) {
      request.putHeader(HttpHeaders.AUTHORIZATION, authorization);
    }
    return client.request(request)
        .compose(sent -> sent.send().compose(response -> response.body().map(body -> {
          if (response.statusCode() != 201) {
            throw new IllegalStateException(response.statusCode() + " " + body.toString().strip());
          }
          return new JsonObject().put("node", node.toString()).put("backup", new JsonObject(body));
        })));
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return worker.executeBlocking(work, true);
  }

  private void answer(RoutingContext ctx, int status, Callable<Object> work) {
    blocking(work).onComplete(done -> {
      if (done.failed()) {
        fail(ctx, done.cause());
      } else {
        Object result = done.result();
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
            .end(result instanceof JsonArray array ? array.encodePrettily() : ((JsonObject) result).encodePrettily());
      }
    });
  }

  private static void fail(RoutingContext ctx, Throwable failure) {
    ApiErrors.failCommand(ctx, failure, "backup failed");
  }

}
