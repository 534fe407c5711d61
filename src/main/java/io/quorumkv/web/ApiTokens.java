package io.quorumkv.web;

import io.quorumkv.config.AuthConfig;
import io.quorumkv.config.Role;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The conf's API tokens, checked as bearer tokens ({@code Authorization: Bearer TOKEN}) before a
 * request is admitted or its body read: {@code 401} without a token or with one the node does not
 * know, {@code 403} with one whose role is too weak (docs/api.md#authentication). A given token is
 * compared by its SHA-256 digest with every token's, in constant time and without stopping at a
 * match, so the time taken tells nothing of the tokens. No token is ever logged or quoted. Shared
 * by every event loop: immutable.
 */
public final class ApiTokens {
  private static final String SCHEME = "Bearer ";

  /** Why a request was refused: no bearer token, a token the node does not know, or too weak a role. */
  public enum Refusal {
    MISSING, UNKNOWN, ROLE;

    /** The reason's metric label. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final AuthConfig auth;
  private final byte[][] digests;
  private final Consumer<Refusal> refusals;

  /** @param refusals told of every refused request (the metrics), on the request's event loop */
  public ApiTokens(AuthConfig auth, Consumer<Refusal> refusals) {
    this.auth = auth;
    this.digests = auth.tokens().stream().map(token -> digest(token.secret())).toArray(byte[][]::new);
    this.refusals = refusals;
  }

  /** Whether any request needs a token: false when the conf sets none, and then no check is mounted. */
  public boolean anyNeeded() {
    return !auth.open(Role.ADMIN);
  }

  /** Whether a request needing {@code needed} may go without a token. */
  public boolean open(Role needed) {
    return auth.open(needed);
  }

  /** A route handler letting on the requests whose token has the role {@code neededBy} their method. */
  public Handler<RoutingContext> requiring(Function<HttpMethod, Role> neededBy) {
    return ctx -> authorize(ctx, neededBy.apply(ctx.request().method()));
  }

  /** A route handler letting on the requests whose token has the role {@code needed}. */
  public Handler<RoutingContext> requiring(Role needed) {
    return ctx -> authorize(ctx, needed);
  }

  private void authorize(RoutingContext ctx, Role needed) {
    if (auth.open(needed)) {
      ctx.next();
      return;
    }
    String given = bearerToken(ctx.request());
    if (given == null) {
      refuse(ctx, Refusal.MISSING, 401, "Bearer",
          "token of role " + needed + " required (Authorization: Bearer TOKEN)");
      return;
    }
    AuthConfig.ApiToken token = find(given);
    if (token == null) {
      refuse(ctx, Refusal.UNKNOWN, 401, "Bearer error=\"invalid_token\"", "unknown token");
    } else if (!token.role().includes(needed)) {
      refuse(ctx, Refusal.ROLE, 403, "Bearer error=\"insufficient_scope\"",
          "token '" + token.name() + "' has role " + token.role() + "; this request needs " + needed);
    } else {
      ctx.next();
    }
  }

  private void refuse(RoutingContext ctx, Refusal reason, int status, String challenge, String message) {
    refusals.accept(reason);
    UnreadBodies.dropOrClose(ctx);
    ctx.response().putHeader("WWW-Authenticate", challenge);
    ApiErrors.send(ctx, status, message);
  }

  /**
   * Whether the request's token may do what {@code needed} may, with nothing answered or counted: for
   * a path that leaves the requests this refuses to the router's {@link #requiring} handlers, which
   * answer them. Reads no header when {@code needed} is open.
   */
  public boolean grants(HttpServerRequest request, Role needed) {
    return auth.open(needed) || grants(bearerToken(request), needed);
  }

  /** Whether {@code given} (a token, null for none) may do what {@code needed} may: for commands that come by other ways than HTTP. */
  public boolean grants(String given, Role needed) {
    if (auth.open(needed)) {
      return true;
    }
    AuthConfig.ApiToken token = given == null ? null : find(given);
    return token != null && token.role().includes(needed);
  }

  /** The token whose text is {@code given}, null for none; the time taken depends on the number of tokens only. */
  private AuthConfig.ApiToken find(String given) {
    byte[] digest = digest(given);
    AuthConfig.ApiToken found = null;
    for (int i = 0; i < digests.length; i++) {
      boolean same = MessageDigest.isEqual(digests[i], digest);
      found = same ? auth.tokens().get(i) : found;
    }
    return found;
  }

  /**
   * The token of the request's {@code Authorization} header of the Bearer scheme (named in any case,
   * RFC 9110; the spaces around the token dropped), else null.
   */
  public static String bearerToken(HttpServerRequest request) {
    String header = request.getHeader(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return null;
    }
    String token = header.substring(SCHEME.length()).strip();
    return token.isEmpty() ? null : token;
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
