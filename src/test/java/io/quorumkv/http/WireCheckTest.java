package io.quorumkv.http;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The fuzzer's reading of request framing: when an answer is due, and when the connection can be reused. */
class WireCheckTest {
  private static WireCheck check(String request) {
    return WireCheck.of(request.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void wholeRequestsAreDueAnAnswerAndKeepTheConnection() {
    assertEquals(new WireCheck(true, true, false, false), check("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n"));
    assertEquals(new WireCheck(true, true, false, false),
        check("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"));
    assertEquals(new WireCheck(true, true, false, false),
        check("PUT /v0/entity?id=a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
    assertEquals(new WireCheck(true, true, true, false), check("HEAD /v0/status HTTP/1.1\r\nHost: x\r\n\r\n"));
  }

  @Test
  void bytesBeyondTheFramingOrAnotherVersionEndTheConnection() {
    assertEquals(new WireCheck(true, false, false, false), check("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\nk4"));
    assertEquals(new WireCheck(true, false, false, false),
        check("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 1\r\n\r\nabc"));
    assertEquals(new WireCheck(true, false, false, false), check("GET /v0/status HTTP/1.0\r\n\r\n"));
    assertEquals(new WireCheck(true, false, false, true), check("GET /v0/status HTTP/2.0\r\n\r\n"));
    assertEquals(new WireCheck(true, false, false, false), check("GET /v0/status HTTP/1.1\r\nConnection: x\r\n\r\n"));
  }

  @Test
  void doubtfulFramingIsNotDueAnAnswer() {
    assertEquals(false, check("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc").answerDue());
    assertEquals(false, check("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: -1\r\n\r\n").answerDue());
    assertEquals(false, check("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Xength: 8\r\n\r\n").answerDue());
    assertEquals(false, check("PUT /v0/entity?id=a HTTP/1.1\r\ncontent-\u0000ength: 8\r\n\r\n").answerDue());
    assertEquals(false, check("PUT /v0/entity?id=a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab").answerDue());
    assertEquals(false, check("GET /v0/status HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n").answerDue());
    assertEquals(false, check("GET /v0/status HTTP/1.1\r\nHost: x\rbare\r\n\r\n").answerDue());
    assertEquals(false, check("GET /v0/status HTTP/1.1\r\nHost: x\r\n").answerDue());
    assertEquals(false, check("\u0000GET /v0/status HTTP/1.1\r\n\r\n").answerDue());
  }

  /** Netty skips leading control bytes: "\0ET / HTTP/9.9" is "ET / HTTP/9.9" to it, which may get its 505. */
  @Test
  void aVersionAfterSkippedLeadingBytesStillCounts() {
    assertEquals(new WireCheck(false, false, false, true), check("\u0000ET /v0/entity?id=k11 HTTP/9.9\r\nHost: x\r\n\r\n"));
    assertEquals(new WireCheck(false, false, false, false), check("\u0000ET /v0/entity HTTP/1.1\r\n\r\n"));
  }
}
