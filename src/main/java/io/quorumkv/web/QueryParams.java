package io.quorumkv.web;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The query parameters of a request, URL-decoded as UTF-8 and case-sensitive by name (vertx-web's
 * own map ignores case), with missing and malformed ones reported as 400s. Percent-encoded bytes
 * that are not valid UTF-8 (such as {@code %ff}) are a 400 rather than U+FFFD: decoding them
 * leniently would map different ids onto one key.
 */
public final class QueryParams {
  private static final int MAX_PARAMS = 1024;

  private final Map<String, List<String>> params;

  private QueryParams(Map<String, List<String>> params) {
    this.params = params;
  }

  public static QueryParams of(RoutingContext ctx) {
    return of(ctx.request());
  }

  public static QueryParams of(HttpServerRequest request) {
    String uri = request.uri();
    Map<String, List<String>> parameters;
    try {
      // ';' is an ordinary character of an id, not a parameter separator.
      parameters = new QueryStringDecoder(uri, StandardCharsets.UTF_8, true, MAX_PARAMS, true).parameters();
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("malformed query string (bad percent-encoding)");
    }
    int query = uri.indexOf('?');
    if (query >= 0 && uri.indexOf('%', query) >= 0) {
      int fragment = uri.indexOf('#', query);
      requireUtf8(uri.substring(query + 1, fragment < 0 ? uri.length() : fragment));
    }
    return new QueryParams(parameters);
  }

  /** Checks every run of percent-encoded bytes of each parameter (already known well-formed) is UTF-8. */
  private static void requireUtf8(String query) {
    for (String part : query.split("&", -1)) {
      int equals = part.indexOf('=');
      String name = equals < 0 ? part : part.substring(0, equals);
      if (!escapesAreUtf8(name)) {
        throw new BadRequestException("a query parameter name is not valid UTF-8 once percent-decoded");
      }
      if (equals >= 0 && !escapesAreUtf8(part.substring(equals + 1))) {
        throw new BadRequestException("'" + name + "' is not valid UTF-8 once percent-decoded");
      }
    }
  }

  /** Whether each run of {@code %XX} escapes decodes as UTF-8 (Netty decodes run by run, the same way). */
  private static boolean escapesAreUtf8(String component) {
    int i = component.indexOf('%');
    while (i >= 0 && i + 2 < component.length()) {
      ByteBuffer run = ByteBuffer.allocate((component.length() - i) / 3);
      while (i + 2 < component.length() && component.charAt(i) == '%') {
        run.put((byte) Integer.parseInt(component, i + 1, i + 3, 16));
        i += 3;
      }
      run.flip();
      try {
        StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(run);
      } catch (CharacterCodingException e) {
        return false;
      }
      i = component.indexOf('%', i);
    }
    return true;
  }

  /** The parameter's first value, or null when absent. */
  public String optional(String name) {
    List<String> values = params.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /**
   * A parameter that must be a decimal integer, or null when absent. Non-ASCII characters are
   * refused here because Java's number parsing accepts any Unicode digit ({@code ack=１}).
   */
  public String optionalInteger(String name, String expected) {
    String value = optional(name);
    if (value != null) {
      for (int i = 0; i < value.length(); i++) {
        if (value.charAt(i) > 0x7f) {
          throw new BadRequestException(name + " must be " + expected + ", got '" + value + "'");
        }
      }
    }
    return value;
  }

  /** A key as a parameter's value: its UTF-8 text, percent-encoded, as {@link #requiredKey} reads it back. */
  public static String encodeKey(byte[] key) {
    return URLEncoder.encode(new String(key, StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  /** The query of a key range, {@code start=S[&end=E]} ({@code end} null for no bound). */
  public static String rangeQuery(byte[] start, byte[] end) {
    return "start=" + encodeKey(start) + (end == null ? "" : "&end=" + encodeKey(end));
  }

  /** A non-empty parameter as UTF-8 bytes, the form keys are stored and ordered in. */
  public byte[] requiredKey(String name) {
    return requiredKey(name, null);
  }

  /** {@link #requiredKey}, whose 400 for a missing or empty value adds {@code hint} in parentheses. */
  public byte[] requiredKey(String name, String hint) {
    String value = optional(name);
    if (value == null || value.isEmpty()) {
      throw new BadRequestException("missing or empty '" + name + "'" + (hint == null ? "" : " (" + hint + ")"));
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }

  /** Like {@link #requiredKey} but absent is allowed (null); present-but-empty is a 400. */
  public byte[] optionalKey(String name) {
    return params.containsKey(name) ? requiredKey(name) : null;
  }
}
