package io.quorumkv.antientropy;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The initiating side's calls of {@link TreeProtocol} to another node; each fails after its timeout. */
final class TreeClient {
  private final PeerClient client;
  private final NodeUrl self;

  TreeClient(Vertx vertx, NodeConfig config) {
    this.client = new PeerClient(vertx, config, InternalEndpoint.Timeout.TREE, new PoolOptions());
    this.self = config.url();
  }

  Future<TreeProtocol.RootAnswer> root(NodeUrl peer, long epoch, long ourRoot) {
    return send(request(InternalEndpoint.TREE_ROOT, peer, epoch).addQueryParam("root", Long.toString(ourRoot)), null,
        200).map(TreeProtocol::decodeRoot);
  }

  Future<List<long[]>> segments(NodeUrl peer, long epoch, int[] branches) {
    return send(request(InternalEndpoint.TREE_SEGMENTS, peer, epoch), TreeProtocol.encodeIndexes(branches),
        200).map(body -> TreeProtocol.decodeSegments(body, branches.length));
  }

  Future<List<TreeProtocol.KeyDigest>> keys(NodeUrl peer, long epoch, int[] segments) {
    return send(request(InternalEndpoint.TREE_KEYS, peer, epoch), TreeProtocol.encodeIndexes(segments),
        200).map(TreeProtocol::decodeKeys);
  }

  Future<Void> done(NodeUrl peer, long epoch, long since) {
    return send(request(InternalEndpoint.TREE_DONE, peer, epoch)
        .addQueryParam("since", Long.toString(since)), Buffer.buffer(), 204).mapEmpty();
  }

  void close() {
    client.close();
  }

  private HttpRequest<Buffer> request(InternalEndpoint endpoint, NodeUrl peer, long epoch) {
    return client.webRequest(endpoint, peer, null)
        .addQueryParam("peer", self.toString()).addQueryParam("epoch", Long.toString(epoch));
  }

  private Future<Buffer> send(HttpRequest<Buffer> request, Buffer body, int expected) {
    Future<HttpResponse<Buffer>> sent = body == null ? request.send() : request.sendBuffer(body);
    // The request's own timeout starts once it has a connection; this one covers the wait for one too.
    return sent.timeout(request.timeout(), TimeUnit.MILLISECONDS).compose(response -> {
      if (response.statusCode() != expected) {
        String text = response.bodyAsString();
        return Future.failedFuture(new IllegalStateException("answered " + response.statusCode()
            + (text == null || text.isBlank() ? "" : ": " + text.strip())));
      }
      return Future.succeededFuture(response.body() == null ? Buffer.buffer() : response.body());
    });
  }
}
