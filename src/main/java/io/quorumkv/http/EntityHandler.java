package io.quorumkv.http;

import io.quorumkv.replication.Coordinator;
import io.quorumkv.replication.Quorum;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.time.InstantSource;

/** {@code GET}, {@code PUT} and {@code DELETE /v0/entity?id=ID[&ack=A&from=F][&ttl=MS]}. */
final class EntityHandler {
  private static final String TTL_EXPECTED = "a positive integer of milliseconds";
  private final Coordinator coordinator;
  private final int clusterSize;
  private final InstantSource wallClock;

  EntityHandler(Coordinator coordinator, int clusterSize, InstantSource wallClock) {
    this.coordinator = coordinator;
    this.clusterSize = clusterSize;
    this.wallClock = wallClock;
  }

  void get(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    coordinator.read(key, quorum).onComplete(read -> {
      if (read.failed()) {
        ApiErrors.fail(ctx, read.cause());
        return;
      }
      Record record = read.result();
      if (record == null || !record.isLive(wallClock.millis())) {
        ctx.response().setStatusCode(404).end();
        return;
      }
      ctx.response()
          .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
          .putHeader(ApiHeaders.VERSION, Long.toString(record.version()))
          .end(Buffer.buffer(record.value()));
    });
  }

  void put(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = quorumOf(params);
    long expiresAt = expiryOf(params.optionalInteger("ttl", TTL_EXPECTED));
    byte[] value = RawBodyHandler.bodyOf(ctx);
    answerWrite(ctx, coordinator.put(key, value, expiresAt, quorum), 201);
  }

  void delete(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    answerWrite(ctx, coordinator.delete(key, quorumOf(params)), 202);
  }

  private static void answerWrite(RoutingContext ctx, Future<Long> write, int status) {
    write.onComplete(done -> {
      if (done.failed()) {
        ApiErrors.fail(ctx, done.cause());
        return;
      }
      ctx.response().setStatusCode(status).putHeader(ApiHeaders.VERSION, Long.toString(done.result())).end();
    });
  }

  private Quorum quorumOf(QueryParams params) {
    return Quorum.parse(params.optionalInteger("ack", "a positive integer"),
        params.optionalInteger("from", "a positive integer"), clusterSize);
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
