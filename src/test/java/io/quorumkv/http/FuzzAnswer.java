package io.quorumkv.http;

import io.quorumkv.support.RawHttp;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A final answer read off a raw connection: status, headers (names lower-cased) and body as text. */
record FuzzAnswer(int status, Map<String, String> headers, String body) {

  /** The connection ended inside the answer's body, after its head. */
  static final class CutShortException extends EOFException {
    CutShortException(String message) {
      super(message);
    }
  }

  boolean closesConnection() {
    return status == 101 || "close".equalsIgnoreCase(headers.get("connection"));
  }

  /**
   * The next final answer; skips 1xx interim answers other than 101.
   *
   * @throws EOFException when the node closed the connection first
   */
  static FuzzAnswer read(InputStream in, boolean head) throws IOException {
    while (true) {
      String statusLine = RawHttp.readLine(in);
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2) {
        throw new IOException("not a status line: " + statusLine);
      }
      int status = Integer.parseInt(parts[1]);
      Map<String, String> headers = new LinkedHashMap<>();
      String line;
      while (!(line = RawHttp.readLine(in)).isEmpty()) {
        int colon = line.indexOf(':');
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
      }
      if (status >= 100 && status < 200 && status != 101) {
        continue;
      }
      if (head || status == 101 || status == 204 || status == 304) {
        return new FuzzAnswer(status, headers, "");
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
        int size;
        while ((size = Integer.parseInt(RawHttp.readLine(in).split(";")[0].trim(), 16)) > 0) {
          byte[] chunk = in.readNBytes(size);
          if (chunk.length < size) {
            throw new CutShortException("chunk cut short");
          }
          body.writeBytes(chunk);
          RawHttp.readLine(in);
        }
        while (!RawHttp.readLine(in).isEmpty()) {
          // trailers
        }
      } else {
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
          throw new CutShortException("body cut short");
        }
        body.writeBytes(bytes);
      }
      return new FuzzAnswer(status, headers, body.toString(StandardCharsets.UTF_8));
    }
  }
}
