package io.quorumkv.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What the node may do with a request's bytes, read conservatively: an answer is due only when the
 * head is complete and its framing is plainly sound (no framing header, or exactly one
 * {@code Content-Length: N} or {@code Transfer-Encoding: chunked} as a client writes it, and the
 * whole body it announces). Anything doubtful (a mangled framing header, a bare CR, a folded
 * line, a short body, bad chunks) may rightly make the node wait for more bytes or close.
 *
 * <p>Vert.x 5.0.10's request decoder ({@code VertxHttpRequestDecoder.splitHeaderName}) takes any
 * 14-byte header name {@code [Cc]ontent-?ength}, whatever the ninth byte, for Content-Length
 * ({@code Content-Xength: 8} makes the node read an 8-byte body), so such names count as framing
 * headers here too.
 *
 * @param answerDue          the node must answer
 * @param reusable           after the answer another request may follow on the connection
 * @param head               the method is HEAD: the answer has no body
 * @param unsupportedVersion the version is well-formed but neither 1.0 nor 1.1
 */
record WireCheck(boolean answerDue, boolean reusable, boolean head, boolean unsupportedVersion) {
  private static final Pattern CONTENT_LENGTH = Pattern.compile("Content-Length: (\\d{1,9})");
  /** What Vert.x's decoder reads as Content-Length: the ninth byte is not compared. */
  private static final Pattern VERTX_CONTENT_LENGTH = Pattern.compile("[Cc]ontent-.ength[:\\s].*", Pattern.DOTALL);
  private static final Pattern CHUNK_SIZE = Pattern.compile("[0-9a-fA-F]{1,7}");

  static WireCheck of(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    if (text.isEmpty() || text.charAt(0) <= ' ') {
      // Netty skips leading control characters and whitespace, then reads what follows as the
      // request line: no answer is due, but one to that line's version may come.
      int start = 0;
      while (start < text.length() && text.charAt(start) <= ' ') {
        start++;
      }
      int lineEnd = text.indexOf('\n', start);
      String line = text.substring(start, lineEnd < 0 ? text.length() : lineEnd);
      return new WireCheck(false, false, false, RequestLine.isUnsupportedVersion(RequestLine.parse(line).version()));
    }
    List<String> lines = new ArrayList<>();
    int headEnd = -1;
    int at = 0;
    while (headEnd < 0) {
      int lf = text.indexOf('\n', at);
      if (lf < 0) {
        break;
      }
      String line = text.substring(at, lf > at && text.charAt(lf - 1) == '\r' ? lf - 1 : lf);
      at = lf + 1;
      if (line.isEmpty()) {
        headEnd = at;
      } else {
        lines.add(line);
      }
    }
    RequestLine requestLine = RequestLine.parse(lines.isEmpty() ? text : lines.get(0));
    boolean head = requestLine.method().equals("HEAD");
    boolean unsupported = RequestLine.isUnsupportedVersion(requestLine.version());
    if (headEnd < 0 || lines.stream().anyMatch(line -> line.indexOf('\r') >= 0)) {
      return new WireCheck(false, false, head, unsupported);
    }
    boolean reusable = requestLine.version().equals("HTTP/1.1");
    int contentLength = -1;
    boolean chunked = false;
    for (String line : lines.subList(1, lines.size())) {
      if (line.charAt(0) == ' ' || line.charAt(0) == '\t') { // folded onto the header before
        return new WireCheck(false, false, head, unsupported);
      }
      String lower = line.toLowerCase(Locale.ROOT);
      if (lower.contains("content-length") || lower.contains("transfer-encoding")
          || VERTX_CONTENT_LENGTH.matcher(line).matches()) {
        var length = CONTENT_LENGTH.matcher(line);
        if (contentLength < 0 && !chunked && length.matches()) {
          contentLength = Integer.parseInt(length.group(1));
        } else if (contentLength < 0 && !chunked && line.equals("Transfer-Encoding: chunked")) {
          chunked = true;
        } else {
          return new WireCheck(false, false, head, unsupported);
        }
      }
      int colon = line.indexOf(':');
      String name = (colon < 0 ? line : line.substring(0, colon)).strip().toLowerCase(Locale.ROOT);
      if (name.equals("connection") || name.equals("expect") || name.equals("upgrade")) {
        reusable = false;
      }
    }
    int rest = bytes.length - headEnd;
    if (chunked) {
      int end = chunkedEnd(text, headEnd);
      if (end < 0) {
        return new WireCheck(false, false, head, unsupported);
      }
      reusable &= end == bytes.length;
    } else if (contentLength >= 0) {
      if (rest < contentLength) {
        return new WireCheck(false, false, head, unsupported);
      }
      reusable &= rest == contentLength;
    } else {
      reusable &= rest == 0;
    }
    return new WireCheck(true, reusable, head, unsupported);
  }

  /** The request's body: its chunks joined when it is chunked, else all bytes after the head. */
  static byte[] body(byte[] request) {
    String text = new String(request, StandardCharsets.ISO_8859_1);
    int headEnd = text.indexOf("\r\n\r\n");
    if (headEnd < 0) {
      return new byte[0];
    }
    int at = headEnd + 4;
    if (!text.substring(0, headEnd).contains("\r\nTransfer-Encoding: chunked")) {
      return java.util.Arrays.copyOfRange(request, at, request.length);
    }
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    while (true) {
      int crlf = text.indexOf("\r\n", at);
      if (crlf < 0 || !CHUNK_SIZE.matcher(text.substring(at, crlf)).matches()) {
        return body.toByteArray();
      }
      int size = Integer.parseInt(text.substring(at, crlf), 16);
      at = crlf + 2;
      if (size == 0 || at + size > request.length) {
        return body.toByteArray();
      }
      body.write(request, at, size);
      at += size + 2;
    }
  }

  /** Where a strictly well-formed chunked body (no extensions, no trailers) ends, or -1. */
  private static int chunkedEnd(String text, int from) {
    int at = from;
    while (true) {
      int crlf = text.indexOf("\r\n", at);
      if (crlf < 0 || !CHUNK_SIZE.matcher(text.substring(at, crlf)).matches()) {
        return -1;
      }
      int size = Integer.parseInt(text.substring(at, crlf), 16);
      at = crlf + 2;
      if (size == 0) {
        return text.startsWith("\r\n", at) ? at + 2 : -1;
      }
      if (at + size + 2 > text.length() || !text.startsWith("\r\n", at + size)) {
        return -1;
      }
      at += size + 2;
    }
  }
}
