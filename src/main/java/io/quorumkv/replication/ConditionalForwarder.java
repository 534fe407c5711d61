package io.quorumkv.replication;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;

/**
 * Sends a conditional write to the key's first live replica, which serializes them
 * ({@link InternalEndpoint#CONDITIONAL_PUT}, {@link InternalEndpoint#CONDITIONAL_DELETE}), and relays
 * its answer to the client as it is; that replica answers with {@link ConditionalEndpoints}.
 * One per HTTP verticle: its connections stay on that event loop.
 */
public final class ConditionalForwarder {
  private static final String[] RELAYED_HEADERS = {
      ApiHeaders.VERSION, ApiHeaders.ETAG, HttpHeaders.CONTENT_TYPE.toString()};

  private final PeerClient client;

  public ConditionalForwarder(Vertx vertx, NodeConfig config) {
    this.client = new PeerClient(vertx, config, InternalEndpoint.Timeout.CONDITIONAL, new PoolOptions());
  }

  public void forward(RoutingContext ctx, NodeUrl firstReplica, byte[] body) {
    HttpServerRequest incoming = ctx.request();
    InternalEndpoint endpoint = incoming.method() == HttpMethod.DELETE
        ? InternalEndpoint.CONDITIONAL_DELETE : InternalEndpoint.CONDITIONAL_PUT;
    HttpRequest<Buffer> request = client.webRequest(endpoint, firstReplica, incoming.query());
    copyHeader(incoming, request, HttpHeaders.IF_MATCH);
    copyHeader(incoming, request, HttpHeaders.IF_NONE_MATCH);
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
