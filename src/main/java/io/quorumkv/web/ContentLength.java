package io.quorumkv.web;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

/** What a request's head says of its body. */
public final class ContentLength {
  /** The declared length of a chunked body, or of a malformed {@code Content-Length}: not known. */
  public static final long UNKNOWN = -1;

  private ContentLength() {
  }

  /** The request's {@code Content-Length}, 0 when it has none and is not chunked, else {@link #UNKNOWN}. */
  public static long of(HttpServerRequest request) {
    if (request.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
      return UNKNOWN;
    }
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length == null) {
      return 0;
    }
    try {
      return Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return UNKNOWN;
    }
  }
}
