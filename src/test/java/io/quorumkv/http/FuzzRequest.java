package io.quorumkv.http;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * One request the fuzzer sends, with what its answer may be.
 *
 * @param bytes              the request as sent
 * @param origin             how it was made: "random", "valid ..." or "mutated ...: the mutations"
 * @param head               a HEAD request: its answer has no body
 * @param reusable           its framing is known, so another request may follow on the connection
 * @param framingBroken      its framing is broken on purpose or by a mutation (a random
 *                           Content-Length, a bad chunk, a cut head): the node may wait for bytes
 *                           that never come, so the fuzzer ends its output after it, and the node
 *                           may close without an answer
 * @param unsupportedVersion its version is well-formed but neither 1.0 nor 1.1: 505 is right
 * @param pristine           a valid request sent unchanged: only 2xx, 404 and 409 are right
 */
record FuzzRequest(byte[] bytes, String origin, boolean head, boolean reusable, boolean framingBroken,
                   boolean unsupportedVersion, boolean pristine) {
  private static final int SHOWN_BODY_BYTES = 40;

  /** The request for a failure message: its head and the start of its body, non-printable bytes escaped. */
  String shown() {
    StringBuilder text = new StringBuilder();
    int headEnd = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n");
    int end = Math.min(bytes.length, headEnd < 0 ? 400 : headEnd + 4 + SHOWN_BODY_BYTES);
    for (int i = 0; i < end; i++) {
      int b = bytes[i] & 0xff;
      if (b == '\r') {
        text.append("\\r");
      } else if (b == '\n') {
        text.append("\\n");
      } else if (b < 0x20 || b > 0x7e) {
        text.append(String.format("\\x%02x", b));
      } else {
        text.append((char) b);
      }
    }
    return "[" + bytes.length + " bytes, " + origin + "] " + text + (end < bytes.length ? "..." : "");
  }

  /** Every byte, to replay it exactly: {@code base64 -d | nc 127.0.0.1 PORT}. */
  String base64() {
    return Base64.getEncoder().encodeToString(bytes);
  }
}
