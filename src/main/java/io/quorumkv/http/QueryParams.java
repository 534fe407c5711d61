package io.quorumkv.http;

import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;

import java.nio.charset.StandardCharsets;

/** The query parameters of a request, URL-decoded, with missing and malformed ones reported as 400s. */
final class QueryParams {
  private final MultiMap params;

  private QueryParams(MultiMap params) {
    this.params = params;
  }

  static QueryParams of(RoutingContext ctx) {
    try {
      return new QueryParams(ctx.queryParams());
    } catch (HttpException | IllegalArgumentException e) {
      throw new BadRequestException("malformed query string (bad percent-encoding)");
    }
  }

  /** The parameter, or null when absent. */
  String optional(String name) {
    return params.get(name);
  }

  /** A non-empty parameter as UTF-8 bytes, the form keys are stored and ordered in. */
  byte[] requiredKey(String name) {
    String value = params.get(name);
    if (value == null || value.isEmpty()) {
      throw new BadRequestException("missing or empty '" + name + "'");
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }

  /** Like {@link #requiredKey} but absent is allowed (null); present-but-empty is a 400. */
  byte[] optionalKey(String name) {
    return params.contains(name) ? requiredKey(name) : null;
  }
}
