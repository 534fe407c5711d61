package io.quorumkv.http;

import io.netty.buffer.Unpooled;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.replication.ClientErrors;
import io.quorumkv.replication.Condition;
import io.quorumkv.replication.ConditionalForwarder;
import io.quorumkv.replication.ConditionalWrites;
import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.EntityQuery;
import io.quorumkv.replication.Preconditions;
import io.quorumkv.replication.Quorum;
import io.quorumkv.replication.SerializerMovingException;
import io.quorumkv.replication.WriteAnswers;
import io.quorumkv.storage.LargeValueSizes;
import io.quorumkv.storage.Record;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;
import java.util.function.LongPredicate;

/**
 * {@code GET}, {@code PUT} and {@code DELETE /v0/entity?id=ID[&ack=A&from=F][&ttl=MS]}, with their
 * conditional headers. A conditional write runs on the key's first live replica: here when this node
 * is that replica, else it is forwarded there ({@link ConditionalForwarder}; that replica answers it with
 * {@code replication.ConditionalEndpoints}).
 */
final class EntityHandler {
  private final Coordinator coordinator;
  private final ConditionalWrites conditionalWrites;
  private final ConditionalForwarder forwarder;
  private final NodeUrl self;
  private final EntityQuery query;
  private final InstantSource wallClock;
  private final LargeValueSizes sizes;

  /** @param sizes told of every value written through here, so that its reads know it before they read it */
  EntityHandler(Coordinator coordinator, ConditionalWrites conditionalWrites, ConditionalForwarder forwarder,
                NodeUrl self, EntityQuery query, InstantSource wallClock, LargeValueSizes sizes) {
    this.coordinator = coordinator;
    this.sizes = sizes;
    this.conditionalWrites = conditionalWrites;
    this.forwarder = forwarder;
    this.self = self;
    this.query = query;
    this.wallClock = wallClock;
  }

  void get(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    LongPredicate notModified = Preconditions.notModifiedOf(ctx.request().headers());
    ClientExchange exchange = ClientExchanges.of(ctx);
    if (exchange.holdKnownValue(key)) {
      read(exchange, key, quorum, notModified);
    }
  }

  /** Reads the key and answers 200 with its value, 304, 404, the failure, or 503 when its value does not fit. */
  void read(ClientExchange exchange, byte[] key, Quorum quorum, LongPredicate notModified) {
    coordinator.read(key, quorum).onComplete(read -> {
      HttpServerRequest request = exchange.request();
      if (read.failed()) {
        ClientErrors.fail(request, read.cause());
        return;
      }
      Record record = read.result();
      boolean live = record != null && record.isLive(wallClock.millis());
      if (!exchange.holdValue(key, live ? record.value() : null)) {
        return;
      }
      if (!live) {
        request.response().setStatusCode(404).end();
        return;
      }
      HttpServerResponse response = WriteAnswers.withVersion(request.response(), record.version());
      if (notModified != null && notModified.test(record.version())) {
        response.setStatusCode(304).end();
        return;
      }
      // Wrapped, not copied: a value of many megabytes is not put on the heap a second time.
      response.putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
          .end(BufferInternal.buffer(Unpooled.wrappedBuffer(record.value())));
    });
  }

  /** Writes the value with no condition and answers 201 with its version, or the failure. */
  void write(HttpServerRequest request, byte[] key, byte[] value, long expiresAt, Quorum quorum) {
    sizes.observe(key, value.length);
    WriteAnswers.answer(request, coordinator.put(key, value, expiresAt, quorum), 201);
  }

  /** Deletes the key with no condition and answers 202 with the tombstone's version, or the failure. */
  void remove(HttpServerRequest request, byte[] key, Quorum quorum) {
    WriteAnswers.answer(request, coordinator.delete(key, quorum), 202);
  }

  void put(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    long expiresAt = expiryOf(params);
    byte[] value = RawBodyHandler.bodyOf(ctx);
    Condition condition = Preconditions.ofWrite(ctx.request().headers(), true);
    if (condition == null) {
      write(ctx.request(), key, value, expiresAt, quorum);
      return;
    }
    sizes.observe(key, value.length);
    if (!forward(ctx, key, quorum, value)) {
      WriteAnswers.answer(ctx.request(), conditionalWrites.put(key, value, expiresAt, quorum, condition), 201);
    }
  }

  void delete(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    Condition condition = Preconditions.ofWrite(ctx.request().headers(), false);
    if (condition == null) {
      remove(ctx.request(), key, quorum);
    } else if (!forward(ctx, key, quorum, null)) {
      WriteAnswers.answer(ctx.request(), conditionalWrites.delete(key, quorum, condition), 202);
    }
  }

  /**
   * Sends the conditional write to the key's first live replica unless that is this node; false
   * when it is this node's to run. Answers 504 when none of the key's replicas is alive, 503 when
   * the cutover of a topology change moves that replica.
   */
  private boolean forward(RoutingContext ctx, byte[] key, Quorum quorum, byte[] value) {
    if (coordinator.serializerMoving(key, quorum.from())) {
      ClientErrors.fail(ctx, new SerializerMovingException());
      return true;
    }
    NodeUrl first = coordinator.firstLiveReplica(key, quorum.from());
    if (first == null) {
      ClientErrors.sendNotEnoughReplicas(ctx, "conditional write: none of the key's " + quorum.from()
          + " replicas is alive");
      return true;
    }
    if (first.equals(self)) {
      return false;
    }
    forwarder.forward(ctx, first, value);
    return true;
  }

  Quorum quorumOf(QueryParams params) {
    return query.quorumOf(params);
  }

  /** The expiry the request's {@code ttl} parameter asks for. */
  long expiryOf(QueryParams params) {
    return query.expiryOf(params);
  }
}
