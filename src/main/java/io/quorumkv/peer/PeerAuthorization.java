package io.quorumkv.peer;

import io.quorumkv.web.ApiErrors;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Lets an internal request on only if it carries the cluster secret (when the conf sets one),
 * compared in constant time; else 403.
 */
public final class PeerAuthorization implements Handler<RoutingContext> {
  private final byte[] secret;

  /** @param secret the cluster secret, null for none */
  public PeerAuthorization(String secret) {
    this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void handle(RoutingContext ctx) {
    String given = ctx.request().getHeader(InternalEndpoint.SECRET_HEADER);
    if (secret != null && (given == null || !MessageDigest.isEqual(secret, given.getBytes(StandardCharsets.UTF_8)))) {
      ApiErrors.send(ctx, 403, "internal request without the cluster secret");
      return;
    }
    ctx.next();
  }
}
