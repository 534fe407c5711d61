package io.quorumkv.http;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The query parameters of a request, URL-decoded as UTF-8 and case-sensitive by name (vertx-web's
 * own map ignores case), with missing and malformed ones reported as 400s.
 */
final class QueryParams {
  private static final int MAX_PARAMS = 1024;

  private final Map<String, List<String>> params;

  private QueryParams(Map<String, List<String>> params) {
    this.params = params;
  }

  static QueryParams of(RoutingContext ctx) {
    try {
      // ';' is an ordinary character of an id, not a parameter separator.
      return new QueryParams(new QueryStringDecoder(ctx.request().uri(), StandardCharsets.UTF_8, true,
          MAX_PARAMS, true).parameters());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("malformed query string (bad percent-encoding)");
    }
  }

  /** The parameter's first value, or null when absent. */
  String optional(String name) {
    List<String> values = params.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** A non-empty parameter as UTF-8 bytes, the form keys are stored and ordered in. */
  byte[] requiredKey(String name) {
    String value = optional(name);
    if (value == null || value.isEmpty()) {
      throw new BadRequestException("missing or empty '" + name + "'");
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }

  /** Like {@link #requiredKey} but absent is allowed (null); present-but-empty is a 400. */
  byte[] optionalKey(String name) {
    return params.containsKey(name) ? requiredKey(name) : null;
  }
}
