package io.quorumkv.antientropy;

import io.quorumkv.admission.Admission;
import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.storage.RecordDigest;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** The answering side of anti-entropy exchanges ({@link TreeProtocol}), mounted behind the cluster secret. */
public final class TreeHandler implements RouteMount {
  private final TreeService trees;
  private final Admission admission;
  private final PeerAuthorization authorization;

  public TreeHandler(TreeService trees, Admission admission, PeerAuthorization authorization) {
    this.trees = trees;
    this.admission = admission;
    this.authorization = authorization;
  }

  @Override
  public void mount(Router router) {
    RawBodyHandler bodies = RawBodyHandler.forPeers(TreeProtocol.MAX_REQUEST_BYTES, admission);
    new PeerRoutes(router, authorization, this)
        .add(InternalEndpoint.TREE_ROOT, guarded(this::root))
        .add(InternalEndpoint.TREE_SEGMENTS, bodies, guarded(this::segments))
        .add(InternalEndpoint.TREE_KEYS, bodies, guarded(this::keys))
        .add(InternalEndpoint.TREE_DONE, bodies, guarded(this::done))
        .end();
  }

  private static Handler<RoutingContext> guarded(Handler<RoutingContext> handler) {
    return ApiErrors.guarded(handler, TreeHandler::fail);
  }

  /** 409 to an exchange between trees of different epochs; the rest as any internal request. */
  private static void fail(RoutingContext ctx, Throwable failure) {
    if (failure instanceof TreeEpochException) {
      ApiErrors.send(ctx, 409, failure.getMessage());
    } else {
      ApiErrors.fail(ctx, failure);
    }
  }

  private void root(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    long theirRoot = longOf(params, "root");
    send(ctx, trees.root(peer, longOf(params, "epoch"), theirRoot));
  }

  private void segments(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    int[] branches = indexes(ctx, HashTree.BRANCHES);
    send(ctx, trees.segments(peer, longOf(params, "epoch"), branches));
  }

  private void keys(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    int[] segments = indexes(ctx, RecordDigest.SEGMENTS);
    trees.keys(peer, longOf(params, "epoch"), segments).onComplete(listed -> {
      if (listed.failed()) {
        fail(ctx, listed.cause());
      } else {
        send(ctx, listed.result());
      }
    });
  }

  private void done(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    long since = longOf(params, "since");
    try {
      trees.done(peer, longOf(params, "epoch"), since);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
    ctx.response().setStatusCode(204).end();
  }

  private NodeUrl peerOf(QueryParams params) {
    String text = params.optional("peer");
    if (text == null) {
      throw new BadRequestException("missing 'peer'");
    }
    NodeUrl peer;
    try {
      peer = NodeUrl.parse("peer", text);
    } catch (ConfigException e) {
      throw new BadRequestException(e.getMessage());
    }
    if (!trees.shares(peer)) {
      throw new BadRequestException("peer " + peer + " is not another node of this cluster");
    }
    return peer;
  }

  private static long longOf(QueryParams params, String name) {
    String text = params.optionalInteger(name, "a signed 64-bit integer");
    if (text == null) {
      throw new BadRequestException("missing '" + name + "'");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new BadRequestException("'" + name + "' must be a signed 64-bit integer");
    }
  }

  private static int[] indexes(RoutingContext ctx, int bound) {
    try {
      return TreeProtocol.decodeIndexes(Buffer.buffer(RawBodyHandler.bodyOf(ctx)), bound);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage());
    }
  }

  private static void send(RoutingContext ctx, Buffer body) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream").end(body);
  }
}
