package io.quorumkv.backup;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.EveryNode;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpHeaders;
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
 * backup of this node ({@code scope=cluster}: of every node of the topology at once, the others
 * asked through {@link InternalEndpoint#BACKUP_TAKE}, behind the cluster secret and mutual TLS, with
 * no client token), {@code GET} lists this node's backups, {@code DELETE ?name=N} deletes one.
 * Backups run on a worker pool of their own, one at a time, never on the storage workers.
 */
public final class BackupAdmin implements RouteMount {
  public static final String PATH = "/admin/backup";
  private static final String POOL = "quorumkv-backups";
  private static final String FAILED = "backup failed";

  private final Vertx vertx;
  private final NodeConfig config;
  private final NodeBackups backups;
  private final Supplier<List<NodeUrl>> members;
  private final PeerAuthorization peers;
  private final WorkerExecutor worker;

  /** @param members the nodes of the topology in force, which a cluster backup asks */
  public BackupAdmin(Vertx vertx, NodeConfig config, NodeBackups backups, Supplier<List<NodeUrl>> members,
                     PeerAuthorization peers) {
    this.vertx = vertx;
    this.config = config;
    this.backups = backups;
    this.members = members;
    this.peers = peers;
    this.worker = vertx.createSharedWorkerExecutor(POOL, 1, InternalEndpoint.Timeout.BACKUP_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void mount(Router router) {
    new PeerRoutes(router, peers, this).add(InternalEndpoint.BACKUP_TAKE, ApiErrors.guarded(this::takeForANode)).end();
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
      answer(ctx, 201, () -> takeHere(name));
    }
  }

  /** A cluster backup's part on this node, asked by the node given it, which checked the caller's token. */
  private void takeForANode(RoutingContext ctx) {
    String name = NodeBackups.checkName(QueryParams.of(ctx).optional("name"));
    answer(ctx, 201, () -> takeHere(name));
  }

  private JsonObject takeHere(String name) {
    return backups.take(name).toJson();
  }

  /**
   * Takes this node's backup and asks every other node of the topology at once; 201 when every
   * one took its backup, else 502, with each node's answer.
   */
  private void takeEverywhere(RoutingContext ctx, String name) {
    List<Future<JsonObject>> answers = new ArrayList<>();
    EveryNode.ask(vertx, config, InternalEndpoint.BACKUP_TAKE, members.get(), () -> takenHere(name),
        (client, node) -> askNode(client, node, name)).forEach((node, backup) -> answers.add(
            backup.map(manifest -> new JsonObject().put("node", node.toString()).put("backup", manifest))
                .otherwise(failure -> new JsonObject().put("node", node.toString()).put("error", failure.getMessage()))));
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

  /** This node's backup, failing with the status and message its own answer would have. */
  private Future<JsonObject> takenHere(String name) {
    return this.<JsonObject>blocking(() -> takeHere(name)).recover(failure -> Future.failedFuture(
        ApiErrors.commandStatus(failure) + " " + ApiErrors.shortLine(ApiErrors.commandMessage(failure, FAILED))));
  }

  private Future<JsonObject> askNode(PeerClient client, NodeUrl node, String name) {
    return client.webRequest(InternalEndpoint.BACKUP_TAKE, node, "name=" + URLEncoder.encode(name, StandardCharsets.UTF_8))
        .send().compose(response -> response.statusCode() == 201 ? Future.succeededFuture(response.bodyAsJsonObject())
            : Future.failedFuture(response.statusCode() + " " + response.bodyAsString().strip()));
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
    ApiErrors.failCommand(ctx, failure, FAILED);
  }

}
