package io.quorumkv.admin;

import io.quorumkv.http.ApiErrors;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** The conf's admin token, checked on admin requests as a bearer token; none set lets every request through. */
final class AdminToken {
  private final byte[] token;

  AdminToken(String token) {
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  /** A route handler: goes on with the request when it carries the token, else answers 401 or 403. */
  void authorize(RoutingContext ctx) {
    if (token == null) {
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.startsWith("Bearer ")) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer");
      ApiErrors.send(ctx, 401, "admin token required (Authorization: Bearer TOKEN)");
    } else if (!matches(header.substring("Bearer ".length()))) {
      ApiErrors.send(ctx, 403, "wrong admin token");
    } else {
      ctx.next();
    }
  }

  /** Whether {@code given} is the token (always, when none is set). */
  boolean matches(String given) {
    return token == null || given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
  }

  /** The token itself, null for none. */
  String text() {
    return token == null ? null : new String(token, StandardCharsets.UTF_8);
  }
}
