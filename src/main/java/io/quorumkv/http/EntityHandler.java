package io.quorumkv.http;

import io.netty.buffer.Unpooled;
import io.quorumkv.config.NodeUrl;
import io.quorumkv.replication.Condition;
import io.quorumkv.replication.ConditionalWrites;
import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.Quorum;
import io.quorumkv.replication.SerializerMovingException;
import io.quorumkv.storage.Record;
import io.quorumkv.topology.Topology;
import io.quorumkv.web.ApiHeaders;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * {@code GET}, {@code PUT} and {@code DELETE /v0/entity?id=ID[&ack=A&from=F][&ttl=MS]}, with their
 * conditional headers. A conditional write runs on the key's first live replica: this node when
 * it is that replica or the request came {@linkplain #putForwarded forwarded}, else it is
 * forwarded there.
 */
final class EntityHandler {
  private static final String TTL_EXPECTED = "a positive integer of milliseconds";
  private final Coordinator coordinator;
  private final ConditionalWrites conditionalWrites;
  private final ConditionalForwarder forwarder;
  private final NodeUrl self;
  private final Supplier<Topology> topology;
  private final InstantSource wallClock;
  private final LargeReads largeReads;

  EntityHandler(Coordinator coordinator, ConditionalWrites conditionalWrites, ConditionalForwarder forwarder,
                NodeUrl self, Supplier<Topology> topology, InstantSource wallClock, LargeReads largeReads) {
    this.coordinator = coordinator;
    this.largeReads = largeReads;
    this.conditionalWrites = conditionalWrites;
    this.forwarder = forwarder;
    this.self = self;
    this.topology = topology;
    this.wallClock = wallClock;
  }

  void get(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    LongPredicate notModified = Preconditions.notModifiedOf(ctx.request().headers());
    if (!largeReads.admitRead(ctx, key)) {
      return;
    }
    read(ctx.request(), key, quorum, notModified, value -> largeReads.admitValue(ctx, key, value));
  }

  /** Whether the value read may be answered: false once a 503 is sent for want of memory to hold it. */
  interface ValueAdmission {
    boolean admit(byte[] value);
  }

  /** Reads the key and answers 200 with its value, 304, 404, or the failure. */
  void read(HttpServerRequest request, byte[] key, Quorum quorum, LongPredicate notModified,
            ValueAdmission admission) {
    coordinator.read(key, quorum).onComplete(read -> {
      if (read.failed()) {
        ClientErrors.fail(request, read.cause());
        return;
      }
      Record record = read.result();
      boolean live = record != null && record.isLive(wallClock.millis());
      if (!admission.admit(live ? record.value() : null)) {
        return;
      }
      if (!live) {
        request.response().setStatusCode(404).end();
        return;
      }
      HttpServerResponse response = withVersion(request.response(), record.version());
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
    largeReads.written(key, value);
    answerWrite(request, coordinator.put(key, value, expiresAt, quorum), 201);
  }

  /** Deletes the key with no condition and answers 202 with the tombstone's version, or the failure. */
  void remove(HttpServerRequest request, byte[] key, Quorum quorum) {
    answerWrite(request, coordinator.delete(key, quorum), 202);
  }

  void put(RoutingContext ctx) {
    put(ctx, false);
  }

  void delete(RoutingContext ctx) {
    delete(ctx, false);
  }

  /** A conditional PUT another node sent here as the key's first live replica: run here, whatever this node sees. */
  void putForwarded(RoutingContext ctx) {
    put(ctx, true);
  }

  /** As {@link #putForwarded}, for a DELETE. */
  void deleteForwarded(RoutingContext ctx) {
    delete(ctx, true);
  }

  private void put(RoutingContext ctx, boolean forwarded) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    long expiresAt = expiryOf(params);
    byte[] value = RawBodyHandler.bodyOf(ctx);
    Condition condition = conditionOf(ctx, true, forwarded);
    if (condition == null) {
      write(ctx.request(), key, value, expiresAt, quorum);
      return;
    }
    largeReads.written(key, value);
    if (forwarded || !forward(ctx, key, quorum, value)) {
      answerWrite(ctx.request(), conditionalWrites.put(key, value, expiresAt, quorum, condition), 201);
    }
  }

  private void delete(RoutingContext ctx, boolean forwarded) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    Condition condition = conditionOf(ctx, false, forwarded);
    if (condition == null) {
      remove(ctx.request(), key, quorum);
    } else if (forwarded || !forward(ctx, key, quorum, null)) {
      answerWrite(ctx.request(), conditionalWrites.delete(key, quorum, condition), 202);
    }
  }

  private static Condition conditionOf(RoutingContext ctx, boolean isPut, boolean forwarded) {
    Condition condition = Preconditions.ofWrite(ctx.request().headers(), isPut);
    if (condition == null && forwarded) {
      throw new BadRequestException("a forwarded write must be conditional");
    }
    return condition;
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

  private static void answerWrite(HttpServerRequest request, Future<Long> write, int status) {
    write.onComplete(done -> {
      if (done.failed()) {
        ClientErrors.fail(request, done.cause());
        return;
      }
      withVersion(request.response(), done.result()).setStatusCode(status).end();
    });
  }

  private static HttpServerResponse withVersion(HttpServerResponse response, long version) {
    return response.putHeader(ApiHeaders.VERSION, Long.toString(version))
        .putHeader(ApiHeaders.ETAG, Preconditions.entityTag(version));
  }

  Quorum quorumOf(QueryParams params) {
    Topology current = topology.get();
    return Quorum.parse(params.optionalInteger("ack", "a positive integer"),
        params.optionalInteger("from", "a positive integer"), current.defaultFrom(), current.readSize());
  }

  /** The expiry the request's {@code ttl} parameter asks for. */
  long expiryOf(QueryParams params) {
    return expiryOf(params.optionalInteger("ttl", TTL_EXPECTED));
  }

  /**
   * Absolute expiry for a {@code ttl} in milliseconds, {@link Record#NEVER} without one. A ttl so
   * large that now + ttl overflows is clamped to the largest time, so it never wraps into the past.
   */
  private long expiryOf(String ttlText) {
    if (ttlText == null) {
      return Record.NEVER;
    }
    long ttl;
    try {
      ttl = Long.parseLong(ttlText);
    } catch (NumberFormatException e) {
      throw new BadRequestException("ttl must be " + TTL_EXPECTED + ", got '" + ttlText + "'");
    }
    if (ttl <= 0) {
      throw new BadRequestException("ttl must be " + TTL_EXPECTED + ", got " + ttl);
    }
    long now = wallClock.millis();
    return ttl > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + ttl;
  }
}
