package io.quorumkv.http;

import io.quorumkv.web.ApiErrors;

/**
 * What an answer to a fuzzed request must be: never a 5xx but 505 to a well-formed unsupported
 * version; every 4xx but 404 one short text/plain line without a stack trace; and to a valid
 * request sent unchanged, a 2xx, 404 (an absent key or recording) or 409 (a recording running
 * or not yet written), nothing else. The fuzzed node is alone in its topology, so an unchanged
 * anti-entropy request, which names another node, is refused with 400 for that reason alone.
 */
final class FuzzOracle {
  private static final String NOT_A_PEER = "is not another node of this cluster";
  private FuzzOracle() {
  }

  /** What is wrong with the answer, or null. */
  static String problemWith(FuzzAnswer answer, FuzzRequest request) {
    int status = answer.status();
    if (status >= 500 && !(status == 505 && request.unsupportedVersion())) {
      return "status " + status + " (" + answer.body().strip() + ")";
    }
    if (request.pristine() && !(status >= 200 && status < 300 || status == 404 || status == 409
        || status == 400 && answer.body().contains(NOT_A_PEER))) {
      return "a valid request answered " + status + " (" + answer.body().strip() + ")";
    }
    if (status < 400 || status == 404 || request.head()) {
      return null;
    }
    String type = answer.headers().getOrDefault("content-type", "");
    String body = answer.body();
    if (!type.startsWith("text/plain")) {
      return status + " with content-type '" + type + "'";
    }
    if (body.isBlank() || body.length() > ApiErrors.MAX_MESSAGE_CHARS + 8 || body.indexOf('\n') != body.length() - 1) {
      return status + " with a body that is not one short line: '" + body + "'";
    }
    if (body.contains("Exception") || body.contains("\tat ")) {
      return status + " with a stack trace: " + body;
    }
    return null;
  }
}
