package io.quorumkv.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A request as parts the mutator can change one at a time: method, path, query parameters,
 * headers, body and its framing. Strings are ISO-8859-1, one character per byte on the wire, so
 * they can carry raw non-ASCII bytes; parameter values are written as given (already encoded).
 */
final class RequestParts {
  enum Framing { NONE, LENGTH, CHUNKED }

  /** A query parameter; a null value is written without '='. */
  record Param(String name, String value) {
  }

  record Header(String name, String value) {
  }

  /** The serialized request, with where its request line and head end (for byte-level mutations). */
  record Wire(byte[] bytes, int lineEnd, int headEnd) {
  }

  String method;
  String path;
  String version = "HTTP/1.1";
  final List<Param> params = new ArrayList<>();
  final List<Header> headers = new ArrayList<>();
  byte[] body = new byte[0];
  Framing framing = Framing.NONE;
  /** Content-Length as written when it must not match the body; null for the body's length. */
  String declaredLength;
  /** Chunk size for chunked framing. */
  int chunkSize = 1_024;
  /** The body is a batch frame (wire.BatchOperations) (so its fields can be mutated one by one). */
  boolean batch;

  RequestParts(String method, String path) {
    this.method = method;
    this.path = path;
  }

  RequestParts param(String name, String value) {
    params.add(new Param(name, value));
    return this;
  }

  RequestParts header(String name, String value) {
    headers.add(new Header(name, value));
    return this;
  }

  RequestParts body(byte[] bytes, Framing how) {
    body = bytes;
    framing = how;
    return this;
  }

  Wire wire() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringBuilder line = new StringBuilder(method).append(' ').append(path);
    for (int i = 0; i < params.size(); i++) {
      Param param = params.get(i);
      line.append(i == 0 ? '?' : '&').append(param.name());
      if (param.value() != null) {
        line.append('=').append(param.value());
      }
    }
    line.append(' ').append(version).append("\r\n");
    write(out, line.toString());
    int lineEnd = out.size();
    for (Header header : headers) {
      write(out, header.name() + ": " + header.value() + "\r\n");
    }
    if (framing == Framing.LENGTH) {
      write(out, "Content-Length: " + (declaredLength == null ? Integer.toString(body.length) : declaredLength) + "\r\n");
    } else if (framing == Framing.CHUNKED) {
      write(out, "Transfer-Encoding: chunked\r\n");
    }
    write(out, "\r\n");
    int headEnd = out.size();
    if (framing == Framing.CHUNKED) {
      for (int at = 0; at < body.length; at += chunkSize) {
        int size = Math.min(chunkSize, body.length - at);
        write(out, Integer.toHexString(size) + "\r\n");
        out.write(body, at, size);
        write(out, "\r\n");
      }
      write(out, "0\r\n\r\n");
    } else {
      out.writeBytes(body);
    }
    return new Wire(out.toByteArray(), lineEnd, headEnd);
  }

  private static void write(ByteArrayOutputStream out, String text) {
    out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
  }
}
