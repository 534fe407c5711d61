package io.quorumkv.replication;

import io.quorumkv.admission.Admission;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RawBodyHandler;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The key's first replica's side of the conditional writes another node's {@link ConditionalForwarder}
 * sends ({@link InternalEndpoint#CONDITIONAL_PUT}, {@link InternalEndpoint#CONDITIONAL_DELETE}): run here
 * through {@link ConditionalWrites}, whatever this node sees, never forwarded again, and answered as
 * {@code /v0/entity} would. One per event loop, with that loop's {@code ConditionalWrites}.
 */
public final class ConditionalEndpoints implements RouteMount {
  private final ConditionalWrites writes;
  private final EntityQuery query;
  private final PeerAuthorization peers;
  private final Admission admission;
  private final long maxBodyBytes;

  public ConditionalEndpoints(ConditionalWrites writes, EntityQuery query, PeerAuthorization peers,
                              Admission admission, long maxBodyBytes) {
    this.writes = writes;
    this.query = query;
    this.peers = peers;
    this.admission = admission;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void mount(Router router) {
    new PeerRoutes(router, peers, this)
        .add(InternalEndpoint.CONDITIONAL_PUT, RawBodyHandler.forPeers(maxBodyBytes, admission), guarded(this::put))
        .add(InternalEndpoint.CONDITIONAL_DELETE, guarded(this::delete))
        .end();
  }

  private void put(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = query.quorumOf(params);
    long expiresAt = query.expiryOf(params);
    byte[] value = RawBodyHandler.bodyOf(ctx);
    Condition condition = conditionOf(ctx, true);
    WriteAnswers.answer(ctx.request(), writes.put(key, value, expiresAt, quorum, condition), 201);
  }

  private void delete(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    byte[] key = params.requiredKey("id");
    Quorum quorum = query.quorumOf(params);
    Condition condition = conditionOf(ctx, false);
    WriteAnswers.answer(ctx.request(), writes.delete(key, quorum, condition), 202);
  }

  private static Condition conditionOf(RoutingContext ctx, boolean isPut) {
    Condition condition = Preconditions.ofWrite(ctx.request().headers(), isPut);
    if (condition == null) {
      throw new BadRequestException("a forwarded write must be conditional");
    }
    return condition;
  }

  private static Handler<RoutingContext> guarded(Handler<RoutingContext> handler) {
    return ApiErrors.guarded(handler, ClientErrors::fail);
  }
}
