package io.quorumkv.http;

import io.quorumkv.antientropy.HashTree;
import io.quorumkv.antientropy.TreeProtocol;
import io.quorumkv.antientropy.TreeService;
import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RecordDigest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/** The answering side of anti-entropy exchanges ({@link TreeProtocol}), behind the internal authorization. */
final class TreeHandler {
  private final TreeService trees;

  TreeHandler(TreeService trees) {
    this.trees = trees;
  }

  void root(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    long theirRoot = longOf(params, "root");
    send(ctx, trees.root(peer, longOf(params, "epoch"), theirRoot));
  }

  void segments(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    int[] branches = indexes(ctx, HashTree.BRANCHES);
    send(ctx, trees.segments(peer, longOf(params, "epoch"), branches));
  }

  void keys(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    NodeUrl peer = peerOf(params);
    int[] segments = indexes(ctx, RecordDigest.SEGMENTS);
    trees.keys(peer, longOf(params, "epoch"), segments).onComplete(listed -> {
      if (listed.failed()) {
        ApiErrors.fail(ctx, listed.cause());
      } else {
        send(ctx, listed.result());
      }
    });
  }

  void done(RoutingContext ctx) {
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
