package io.quorumkv.web;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** The conf's admin token, checked on admin requests as a bearer token; none set lets every request through. */
public final class AdminToken {
  private static final String SCHEME = "Bearer ";
  private final byte[] token;

  public AdminToken(String token) {
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  /** A route handler: goes on with the request when it carries the token, else answers 401 or 403. */
  public void authorize(RoutingContext ctx) {
    if (token == null) {
      ctx.next();
      return;
    }
    String given = bearerToken(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
    if (given == null) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer");
      ApiErrors.send(ctx, 401, "admin token required (Authorization: Bearer TOKEN)");
    } else if (!matches(given)) {
      ApiErrors.send(ctx, 403, "wrong admin token");
    } else {
      ctx.next();
    }
  }

  /** The token of an {@code Authorization} header of the Bearer scheme (named in any case, RFC 9110), else null. */
  private static String bearerToken(String header) {
    if (header == null || !header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return null;
    }
    String token = header.substring(SCHEME.length()).stripLeading();
    return token.isEmpty() ? null : token;
  }

  /** Whether {@code given} is the token (always, when none is set). */
  public boolean matches(String given) {
    return token == null || given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8));
  }

  /** The token itself, null for none. */
  public String text() {
    return token == null ? null : new String(token, StandardCharsets.UTF_8);
  }
}
