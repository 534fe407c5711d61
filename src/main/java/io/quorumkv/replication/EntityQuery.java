package io.quorumkv.replication;

import io.quorumkv.placement.ReplicaPlacement;
import io.quorumkv.storage.Record;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;

import java.time.InstantSource;
import java.util.function.Supplier;

/**
 * The query parameters of a {@code /v0/entity} request beyond its key, read alike by the public API and
 * by a key's first replica for the conditional writes forwarded to it: the quorum ({@code ack},
 * {@code from}, defaulted by the placement in force) and the expiry a {@code ttl} asks for.
 */
public final class EntityQuery {
  private static final String TTL_EXPECTED = "a positive integer of milliseconds";

  private final Supplier<? extends ReplicaPlacement> placement;
  private final InstantSource wallClock;

  public EntityQuery(Supplier<? extends ReplicaPlacement> placement, InstantSource wallClock) {
    this.placement = placement;
    this.wallClock = wallClock;
  }

  public Quorum quorumOf(QueryParams params) {
    ReplicaPlacement current = placement.get();
    return Quorum.parse(params.optionalInteger("ack", "a positive integer"),
        params.optionalInteger("from", "a positive integer"), current.defaultFrom(), current.readSize());
  }

  /** The expiry the request's {@code ttl} parameter asks for. */
  public long expiryOf(QueryParams params) {
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
