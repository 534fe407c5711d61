package io.quorumkv.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerConnection;

/**
 * Requests the HTTP decoder could not parse (garbage request line, line or headers over the
 * limits) or whose HTTP version this server does not speak: the status Vert.x's default handler
 * picks (414, 431, else 400), or 505 for a well-formed version other than 1.0 and 1.1, with a
 * short text/plain body saying what was wrong, and the connection closed since its framing is lost.
 */
final class InvalidRequests {
  private static final String VERSIONS_SPOKEN = "HTTP/1.0 and HTTP/1.1";

  private InvalidRequests() {
  }

  /** Answers the request; returns the status it answered with. */
  static int answer(HttpServerRequest request) {
    Throwable cause = decoderFailure(request);
    int status;
    String message;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      message = "request line longer than " + HttpVerticle.MAX_INITIAL_LINE_LENGTH + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      message = "request headers larger than " + HttpVerticle.MAX_HEADER_SIZE + " bytes";
    } else if (cause instanceof UnknownVersionException unknown && unknown.wellFormed) {
      status = 505;
      message = "HTTP version not supported; this server speaks " + VERSIONS_SPOKEN;
    } else if (cause instanceof UnknownVersionException) {
      status = 400;
      message = "malformed HTTP version in the request line";
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
    return status;
  }

  private static Throwable decoderFailure(HttpServerRequest request) {
    DecoderResult result = request.decoderResult();
    return result == null ? null : result.cause();
  }

  /**
   * For {@code HttpServer.connectionHandler}: makes a request line with a version other than
   * HTTP/1.0 or HTTP/1.1 reach {@link #answer} like any request the decoder refused.
   *
   * <p>Netty accepts any {@code NAME/major.minor} (such as {@code HTT/1.1}) and Vert.x core then
   * answers it with an empty 501 whose status line echoes that version, before any handler of
   * ours runs. No public API reaches in between, so this uses Vert.x's internal
   * {@link HttpServerConnection} to put {@link VersionCheck} right after the HTTP decoder.
   */
  static void checkVersions(HttpConnection connection) {
    if (connection instanceof HttpServerConnection server) {
      ChannelPipeline pipeline = server.channelHandlerContext().pipeline();
      ChannelHandlerContext decoder = pipeline.context(HttpRequestDecoder.class);
      if (decoder != null) { // none on an HTTP/2 connection
        pipeline.addAfter(decoder.name(), "quorumkvVersionCheck", new VersionCheck());
      }
    }
  }

  /**
   * Marks a decoded request whose version is not HTTP/1.0 or HTTP/1.1 as failed, answered as
   * HTTP/1.1, and drops all that follows on its connection, as Netty does after a request it
   * could not decode: where that request's body ends is not known.
   */
  static final class VersionCheck extends ChannelInboundHandlerAdapter {
    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (refused) {
        ReferenceCountUtil.release(message);
        return;
      }
      if (message instanceof HttpRequest request && request.decoderResult().isSuccess()) {
        HttpVersion version = request.protocolVersion();
        // Netty reuses its two constants only for the exact spellings "HTTP/1.0" and "HTTP/1.1".
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
          refused = true;
          request.setDecoderResult(DecoderResult.failure(new UnknownVersionException(isWellFormed(version))));
          request.setProtocolVersion(HttpVersion.HTTP_1_1);
        }
      }
      ctx.fireChannelRead(message);
    }

    /**
     * RFC 9112's {@code "HTTP/" DIGIT "." DIGIT}, as far as Netty's parse still shows it: Netty
     * upper-cases the name and reads the numbers as integers, so {@code http/2.0} passes as
     * HTTP/2.0, while {@code http/1.1} or {@code HTTP/01.1} show as 1.x versions that are not
     * Netty's constants and are malformed.
     */
    private static boolean isWellFormed(HttpVersion version) {
      int major = version.majorVersion();
      int minor = version.minorVersion();
      return "HTTP".equals(version.protocolName()) && major <= 9 && minor <= 9 && !(major == 1 && minor <= 1);
    }
  }

  /** Why a request was refused for its version; carries no stack trace, it is the client's mistake. */
  static final class UnknownVersionException extends RuntimeException {
    final boolean wellFormed;

    UnknownVersionException(boolean wellFormed) {
      super(wellFormed ? "unsupported HTTP version" : "malformed HTTP version", null, false, false);
      this.wellFormed = wellFormed;
    }
  }
}
