package io.quorumkv.http;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

/**
 * Requests the HTTP decoder could not parse (garbage request line, line or headers over the
 * limits): the status Vert.x's default handler picks (414, 431, else 400), but with a short
 * text/plain body saying what was wrong, and the connection closed since its framing is lost.
 */
final class InvalidRequests {
  private InvalidRequests() {
  }

  static void answer(HttpServerRequest request) {
    Throwable cause = decoderFailure(request);
    int status;
    String message;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      message = "request line longer than " + HttpVerticle.MAX_INITIAL_LINE_LENGTH + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      message = "request headers larger than " + HttpVerticle.MAX_HEADER_SIZE + " bytes";
    } else {
      status = 400;
      message = "malformed HTTP request";
    }
    request.response()
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader(HttpHeaders.CONNECTION, "close")
        .end(message + "\n")
        .onComplete(sent -> request.connection().close());
  }

  private static Throwable decoderFailure(HttpServerRequest request) {
    DecoderResult result = request.decoderResult();
    return result == null ? null : result.cause();
  }
}
