package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerAuthorization;
import io.quorumkv.peer.PeerRoutes;
import io.quorumkv.range.RecordFrames;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.BadRequestException;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RangeStream;
import io.quorumkv.web.RouteMount;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Arrays;
import java.util.Base64;
import java.util.function.Predicate;

/**
 * {@code GET} of {@link InternalEndpoint#TRANSFER} ({@link TransferProtocol}): the records this node sends one receiver in the
 * streaming step of a topology change, counted first (the receiver's "remaining"), then streamed
 * with back-pressure like the internal range.
 */
public final class TransferHandler implements RouteMount {
  private final StorageService storage;
  private final ClusterTopology topology;
  private final PeerAuthorization authorization;

  public TransferHandler(StorageService storage, ClusterTopology topology, PeerAuthorization authorization) {
    this.storage = storage;
    this.topology = topology;
    this.authorization = authorization;
  }

  @Override
  public void mount(Router router) {
    new PeerRoutes(router, authorization, this).add(InternalEndpoint.TRANSFER, ApiErrors.guarded(this::handle)).end();
  }

  private void handle(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    String epochText = params.optional("epoch");
    String receiverText = params.optional("to");
    if (epochText == null || receiverText == null) {
      throw new BadRequestException("'epoch' and 'to' are required");
    }
    long epoch = parseEpoch(epochText);
    NodeUrl receiver = NodeUrl.parse("to", receiverText);
    byte[] start = startAfter(params.optional("after"));
    Topology current = topology.current();
    if (current.epoch() != epoch || current.stage() != Topology.Stage.STREAMING) {
      ApiErrors.send(ctx, 409, "this node is at topology epoch " + current.epoch() + " ("
          + Topology.name(current.stage()) + "), not at the streaming step of epoch " + epoch);
      return;
    }
    NodeUrl self = topology.self();
    if (!current.receivers().contains(receiver) || !current.sourcesFor(receiver).contains(self)) {
      ApiErrors.send(ctx, 400, self + " sends nothing to " + receiver + " at epoch " + epoch);
      return;
    }
    Predicate<RangeEntry> sent = entry -> current.sends(self, receiver, entry.key(), entry.record().replicas());
    storage.count(start, sent)
        .compose(counted -> storage.openRange(start, null).map(cursor -> {
          HttpServerResponse response = ctx.response()
              .setChunked(true)
              .putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
              .putHeader(TransferProtocol.RECORDS_HEADER, Long.toString(counted[0]))
              .putHeader(TransferProtocol.BYTES_HEADER, Long.toString(counted[1]));
          new RangeStream(storage, response, cursor, new RecordFrames(sent)).start();
          return cursor;
        }))
        .onFailure(failure -> ApiErrors.fail(ctx, failure));
  }

  private static long parseEpoch(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new BadRequestException("'epoch' must be a number, got '" + text + "'");
    }
  }

  /** The first key after {@code after} (base64url): the key followed by a zero byte. */
  private static byte[] startAfter(String after) {
    if (after == null) {
      return new byte[0];
    }
    try {
      byte[] key = Base64.getUrlDecoder().decode(after);
      return Arrays.copyOf(key, key.length + 1);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("'after' must be base64url");
    }
  }
}
