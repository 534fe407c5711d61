package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClientOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The initiating side's calls of {@link TreeProtocol} to another node; each fails after its timeout. */
final class TreeClient {
  private final WebClient client;
  private final NodeUrl self;
  private final String secret;
  private final long timeoutMs;

  TreeClient(Vertx vertx, NodeUrl self, String secret, long timeoutMs) {
    this.client = WebClient.create(vertx, PeerClientOptions.from(self, timeoutMs));
    this.self = self;
    this.secret = secret;
    this.timeoutMs = timeoutMs;
  }

  Future<TreeProtocol.RootAnswer> root(NodeUrl peer, long epoch, long ourRoot) {
    return send(request(HttpMethod.GET, peer, InternalEndpoint.TREE_ROOT.path(), epoch)
        .addQueryParam("root", Long.toString(ourRoot)), null, 200).map(TreeProtocol::decodeRoot);
  }

  Future<List<long[]>> segments(NodeUrl peer, long epoch, int[] branches) {
    return send(request(HttpMethod.POST, peer, InternalEndpoint.TREE_SEGMENTS.path(), epoch), TreeProtocol.encodeIndexes(branches),
        200).map(body -> TreeProtocol.decodeSegments(body, branches.length));
  }

  Future<List<TreeProtocol.KeyDigest>> keys(NodeUrl peer, long epoch, int[] segments) {
    return send(request(HttpMethod.POST, peer, InternalEndpoint.TREE_KEYS.path(), epoch), TreeProtocol.encodeIndexes(segments),
        200).map(TreeProtocol::decodeKeys);
  }

  Future<Void> done(NodeUrl peer, long epoch, long since) {
    return send(request(HttpMethod.POST, peer, InternalEndpoint.TREE_DONE.path(), epoch)
        .addQueryParam("since", Long.toString(since)), Buffer.buffer(), 204).mapEmpty();
  }

  void close() {
    client.close();
  }

  private HttpRequest<Buffer> request(HttpMethod method, NodeUrl peer, String path, long epoch) {
    HttpRequest<Buffer> request = client.request(method, peer.port(), peer.host(), path)
        .addQueryParam("peer", self.toString()).addQueryParam("epoch", Long.toString(epoch)).timeout(timeoutMs);
    if (secret != null) {
      request.putHeader(InternalEndpoint.SECRET_HEADER, secret);
    }
    return request;
  }

  private Future<Buffer> send(HttpRequest<Buffer> request, Buffer body, int expected) {
    Future<HttpResponse<Buffer>> sent = body == null ? request.send() : request.sendBuffer(body);
    // The request's own timeout starts once it has a connection; this one covers the wait for one too.
    return sent.timeout(timeoutMs, TimeUnit.MILLISECONDS).compose(response -> {
      if (response.statusCode() != expected) {
        String text = response.bodyAsString();
        return Future.failedFuture(new IllegalStateException("answered " + response.statusCode()
            + (text == null || text.isBlank() ? "" : ": " + text.strip())));
      }
      return Future.succeededFuture(response.body() == null ? Buffer.buffer() : response.body());
    });
  }
}
