package io.quorumkv.http;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClientOptions;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

/**
 * Sends a conditional write to the key's first live replica, which serializes them
 * ({@link InternalProtocol#CONDITIONAL_PATH}), and relays its answer to the client as it is.
 * One per HTTP verticle: its connections stay on that event loop.
 */
final class ConditionalForwarder {
  private static final String[] RELAYED_HEADERS = {
      ApiHeaders.VERSION, ApiHeaders.ETAG, HttpHeaders.CONTENT_TYPE.toString()};

  private final WebClient client;
  private final String secret;
  private final long timeoutMs;

  /** @param timeoutMs how long the first replica may take to answer, lock wait included */
  ConditionalForwarder(Vertx vertx, NodeUrl self, String secret, long connectTimeoutMs, long timeoutMs) {
    this.client = WebClient.create(vertx, PeerClientOptions.from(self, connectTimeoutMs));
    this.secret = secret;
    this.timeoutMs = timeoutMs;
  }

  void forward(RoutingContext ctx, NodeUrl firstReplica, byte[] body) {
    HttpServerRequest incoming = ctx.request();
    String query = incoming.query();
    HttpRequest<Buffer> request = client.request(incoming.method(), firstReplica.port(), firstReplica.host(),
            InternalEndpoint.CONDITIONAL_PUT.path() + (query == null ? "" : "?" + query))
        .timeout(timeoutMs);
    copyHeader(incoming, request, HttpHeaders.IF_MATCH);
    copyHeader(incoming, request, HttpHeaders.IF_NONE_MATCH);
    if (secret != null) {
      request.putHeader(InternalEndpoint.SECRET_HEADER, secret);
    }
    request.sendBuffer(body == null ? null : Buffer.buffer(body)).onComplete(answered -> {
      if (answered.failed()) {
        ClientErrors.sendNotEnoughReplicas(ctx, "conditional write: the key's first replica " + firstReplica
            + " did not answer (" + answered.cause().getMessage() + "); the write may or may not have been done");
        return;
      }
      relay(answered.result(), ctx);
    });
  }

  private static void copyHeader(HttpServerRequest from, HttpRequest<Buffer> to, CharSequence name) {
    for (String value : from.headers().getAll(name)) {
      to.headers().add(name, value);
    }
  }

  private static void relay(HttpResponse<Buffer> answer, RoutingContext ctx) {
    var response = ctx.response().setStatusCode(answer.statusCode()).setStatusMessage(answer.statusMessage());
    for (String name : RELAYED_HEADERS) {
      String value = answer.getHeader(name);
      if (value != null) {
        response.putHeader(name, value);
      }
    }
    Buffer body = answer.body();
    response.end(body == null ? Buffer.buffer() : body);
  }
}
