package io.quorumkv.peer;

import io.quorumkv.web.ApiErrors;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Lets an internal request on only if it comes over a connection with a cluster certificate (under
 * TLS: {@link PeerCertificates}) and carries the cluster secret (when the conf sets one), compared in
 * constant time; else 403, before its body is read.
 */
public final class PeerAuthorization implements Handler<RoutingContext> {
  private final byte[] secret;
  private final PeerCertificates certificates;

  /** @param secret the cluster secret, null for none */
  public PeerAuthorization(String secret, PeerCertificates certificates) {
    this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
    this.certificates = certificates;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!certificates.isClusterPeer(ctx.request().connection())) {
      ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
      ApiErrors.send(ctx, 403, "internal request without a cluster certificate");
      return;
    }
    String given = ctx.request().getHeader(InternalEndpoint.SECRET_HEADER);
    if (secret != null && (given == null || !MessageDigest.isEqual(secret, given.getBytes(StandardCharsets.UTF_8)))) {
      ApiErrors.send(ctx, 403, "internal request without the cluster secret");
      return;
    }
    ctx.next();
  }
}
