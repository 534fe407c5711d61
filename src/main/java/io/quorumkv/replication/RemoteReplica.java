package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Another node as a replica, over its internal endpoint with a pooled keep-alive client. */
public final class RemoteReplica implements Replica {
  private final NodeUrl node;
  private final WebClient client;
  private final long timeoutMs;
  private final String secret;

  public RemoteReplica(NodeUrl node, WebClient client, long timeoutMs, String secret) {
    this.node = node;
    this.client = client;
    this.timeoutMs = timeoutMs;
    this.secret = secret;
  }

  @Override
  public Future<Record> read(byte[] key) {
    return withinDeadline(request(client.get(node.port(), node.host(), uriOf(key))).send())
        .transform(done -> {
          if (done.failed()) {
            return Future.failedFuture(failureOf(done.cause()));
          }
          HttpResponse<Buffer> response = done.result();
          if (response.statusCode() == 404) {
            return Future.succeededFuture(null);
          }
          if (response.statusCode() != 200) {
            return Future.failedFuture(refused(response));
          }
          byte[] value = response.body() == null ? new byte[0] : response.body().getBytes();
          return Future.succeededFuture(InternalProtocol.readRecord(response.headers(), value));
        });
  }

  @Override
  public Future<Void> write(byte[] key, Record record) {
    HttpRequest<Buffer> request = request(client.put(node.port(), node.host(), uriOf(key)));
    InternalProtocol.writeHeaders(record, request.headers());
    return withinDeadline(request.sendBuffer(Buffer.buffer(record.value())))
        .transform(done -> {
          if (done.failed()) {
            return Future.failedFuture(failureOf(done.cause()));
          }
          return done.result().statusCode() == 201 ? Future.succeededFuture() : Future.failedFuture(refused(done.result()));
        });
  }

  /**
   * The whole call, waiting for a pooled connection included, within the replica timeout. The
   * request's own timeout starts only once it has a connection, so with every connection to a
   * stalled peer busy, a call used to wait for one and then for its answer: twice the timeout.
   */
  private <T> Future<T> withinDeadline(Future<T> call) {
    return call.timeout(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private HttpRequest<Buffer> request(HttpRequest<Buffer> request) {
    request.timeout(timeoutMs);
    if (secret != null) {
      request.putHeader(InternalProtocol.SECRET, secret);
    }
    return request;
  }

  private static String uriOf(byte[] key) {
    return InternalProtocol.RECORD_PATH + "?id=" + URLEncoder.encode(new String(key, StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  private ReplicaFailure failureOf(Throwable cause) {
    String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    boolean timedOut = cause instanceof TimeoutException || message.contains("timeout");
    return new ReplicaFailure(timedOut ? "timeout after " + timeoutMs + " ms" : "failed: " + message);
  }

  private static ReplicaFailure refused(HttpResponse<Buffer> response) {
    return new ReplicaFailure("refused with " + response.statusCode());
  }
}
