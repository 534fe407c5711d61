package io.quorumkv.http;

import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.support.Http;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random requests over raw sockets against a real single node, for a bounded time: random methods,
 * mostly real paths, random and badly encoded query parameters, random headers and bodies, and
 * sometimes requests cut short. Every answer must come in time; none may be a 5xx (a single node
 * has no replica to miss); every 4xx but 404 has a short text/plain body without a stack trace.
 * Then the node must still serve.
 *
 * <p>A request whose framing is broken on purpose (a random Content-Length or Transfer-Encoding
 * header, a bad chunk) may instead be closed without an answer, or left waiting for its body: the
 * HTTP decoder (Netty) ends such connections before any handler runs.
 *
 * <p>Replay a failure with {@code -Dfuzz.seed=SEED} (printed at the start); {@code -Dfuzz.millis=MS}
 * sets how long it runs (15 s by default). A few request lines carry another version, well-formed
 * ({@code HTTP/2.0}) or not ({@code HTT/1.1}): the one 5xx allowed is 505 to a well-formed version.
 */
class RequestFuzzTest {
  private static final int BODY_LIMIT = 64 * 1024;
  private static final int ANSWER_TIMEOUT_MS = 5_000;
  private static final int MAX_FAILURES_SHOWN = 10;
  private static final String[] PATHS = {"/v0/entity", "/v0/entity", "/v0/entity", "/v0/entity", "/v0/entities",
      "/v0/entities", "/v0/status", "/v0/cluster", "/metrics", InternalProtocol.RECORD_PATH, "/", "/v0", "/v0/entity/",
      "/v0/entity/x", "//v0/entity", "/v0/../v0/entity", "/v0/%65ntity", "/v0/entity%00", "*"};
  private static final String[] PARAMS = {"id", "id", "id", "ack", "from", "ttl", "start", "end", "ID", "Id", "x", ""};
  private static final String[] METHODS = {"GET", "GET", "GET", "PUT", "PUT", "PUT", "DELETE", "POST", "HEAD",
      "OPTIONS", "PATCH", "TRACE", "CONNECT", "PROPFIND", "get"};
  /** Well-formed (RFC 9112: "HTTP/" DIGIT "." DIGIT) but neither 1.0 nor 1.1: answered 505. */
  private static final String[] UNSUPPORTED_VERSIONS = {"HTTP/2.0", "HTTP/3.0", "HTTP/1.2", "HTTP/0.9"};
  private static final String[] MALFORMED_VERSIONS = {"HTT/1.1", "http/1.1", "HTTP/1.10", "HTTP/x.y", "HTTP/1", "FOO", ""};
  private static final String[] HEADER_NAMES = {"Content-Type", "Accept", "Expect", "Connection", "Upgrade",
      "Content-Encoding", "Transfer-Encoding", "Content-Length", "Range", "If-None-Match", "Authorization",
      "Cookie", "X-Forwarded-For", ApiHeaders.VERSION, RecordHeaders.TOMBSTONE, RecordHeaders.EXPIRES_AT,
      InternalProtocol.SECRET, "Host"};

  @TempDir
  Path dataDir;

  /**
   * One generated request: its bytes; whether its framing is known to us (the connection can be
   * reused after it); whether its framing is broken on purpose (a bad chunk, a random
   * Content-Length or Transfer-Encoding), in which case the node may close without an answer;
   * whether its version is well-formed but unsupported, the one case where a 5xx (505) is right.
   */
  private record Request(byte[] bytes, boolean head, boolean framed, boolean broken, boolean unsupportedVersion,
                         String shown) {
  }

  private record Answer(int status, Map<String, String> headers, String body) {
  }

  @Test
  void randomRequestsNeverGet5xxHangOrStackTrace() throws Exception {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    long millis = Long.getLong("fuzz.millis", 15_000);
    System.out.println("RequestFuzzTest seed=" + seed + " (replay with -Dfuzz.seed=" + seed + "), running " + millis + " ms");
    Random random = new Random(seed);
    try (TestNode node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("maxBodyBytes", BODY_LIMIT)),
        java.time.InstantSource.system())) {
      List<String> failures = new ArrayList<>();
      Map<Integer, Integer> statuses = new TreeMap<>();
      int sent = 0;
      int cut = 0;
      long deadline = System.nanoTime() + millis * 1_000_000;
      while (System.nanoTime() < deadline && failures.size() < MAX_FAILURES_SHOWN) {
        try (Socket socket = connect(node.port())) {
          InputStream in = new BufferedInputStream(socket.getInputStream());
          OutputStream out = socket.getOutputStream();
          int onThisConnection = 1 + random.nextInt(4);
          String previous = "";
          for (int i = 0; i < onThisConnection; i++) {
            Request request = request(random);
            boolean truncate = random.nextInt(12) == 0;
            sent++;
            boolean sentWhole = true;
            try {
              if (truncate) {
                cut++;
                sentWhole = false;
                out.write(request.bytes(), 0, random.nextInt(request.bytes().length + 1));
                out.flush();
                socket.shutdownOutput();
              } else {
                out.write(request.bytes());
                out.flush();
              }
            } catch (IOException e) {
              sentWhole = false; // the node may close early, say after answering 413 to a large body
            }
            Answer answer;
            try {
              answer = read(in, request.head());
            } catch (SocketTimeoutException e) {
              if (!request.broken()) { // with a random Transfer-Encoding the node may rightly wait for a body
                failures.add("no answer within " + ANSWER_TIMEOUT_MS + " ms to " + request.shown() + previous);
              }
              break;
            } catch (IOException e) {
              if (sentWhole && !request.broken()) {
                failures.add("connection closed without an answer (" + e.getMessage() + ") to " + request.shown() + previous);
              }
              break;
            }
            statuses.merge(answer.status(), 1, Integer::sum);
            String problem = problemWith(answer, request);
            if (problem != null) {
              failures.add(problem + " for " + request.shown() + previous);
            }
            previous = "\n    after, on the same connection, " + answer.status() + " " + answer.headers() + " to " + request.shown();
            if (truncate || !request.framed() || answer.status() == 101
                || "close".equalsIgnoreCase(answer.headers().get("connection"))) {
              break;
            }
          }
        }
      }
      System.out.println("RequestFuzzTest sent " + sent + " requests (" + cut + " cut short), statuses " + statuses);
      assertTrue(failures.isEmpty(), "seed " + seed + ": " + failures.size() + " bad answers:\n" + String.join("\n", failures));

      assertEquals(200, node.http.get("/v0/status").statusCode());
      node.http.putEntity("after-fuzz", "still here");
      assertEquals("still here", text(node.http.get("/v0/entity?id=after-fuzz")));
    }
  }

  private static String problemWith(Answer answer, Request request) {
    int status = answer.status();
    boolean head = request.head();
    if (status >= 500 && !(status == 505 && request.unsupportedVersion())) {
      return "status " + status + " (" + answer.body() + ")";
    }
    if (status < 400 || status == 404 || head) {
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

  // --- generating requests ---

  private static Request request(Random random) {
    String method = random.nextInt(20) == 0 ? token(random, 1 + random.nextInt(12)) : pick(random, METHODS);
    StringBuilder target = new StringBuilder(random.nextInt(10) == 0 ? randomPath(random) : pick(random, PATHS));
    int params = random.nextInt(5);
    for (int i = 0; i < params; i++) {
      target.append(i == 0 ? '?' : '&');
      String name = random.nextInt(10) == 0 ? component(random) : pick(random, PARAMS);
      target.append(name);
      if (random.nextInt(10) != 0) {
        target.append('=').append(value(random, name));
      }
    }
    if (random.nextInt(30) == 0) {
      target.append('#').append(component(random));
    }
    String version = version(random);
    boolean unsupportedVersion = isUnsupportedVersion(version);
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    write(head, method + " " + target + " " + version + "\r\n");
    if (random.nextInt(10) != 0) {
      write(head, "Host: 127.0.0.1\r\n");
    }
    boolean framed = version.equals("HTTP/1.1"); // HTTP/1.0 closes after one answer, and so does a bad version
    boolean broken = false;
    int headers = random.nextInt(4);
    for (int i = 0; i < headers; i++) {
      String name = random.nextInt(4) == 0 ? token(random, 1 + random.nextInt(20)) : pick(random, HEADER_NAMES);
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.equals("content-length") || lower.equals("transfer-encoding") || lower.equals("connection")
          || lower.equals("upgrade") || lower.equals("expect")) {
        framed = false;
      }
      if (lower.equals("content-length") || lower.equals("transfer-encoding")) {
        broken = true;
      }
      head.writeBytes(name.getBytes(StandardCharsets.ISO_8859_1));
      write(head, ": ");
      head.writeBytes(headerValue(random));
      write(head, "\r\n");
    }
    byte[] body = body(random, method);
    int framing = random.nextInt(10);
    ByteArrayOutputStream whole = new ByteArrayOutputStream();
    if (body.length > 0 && framing < 2) {
      whole.writeBytes(head.toByteArray());
      write(whole, "Transfer-Encoding: chunked\r\n\r\n");
      broken |= !writeChunked(whole, body, random);
    } else if (body.length == 0 && framing < 5) {
      whole.writeBytes(head.toByteArray());
      write(whole, "\r\n");
    } else {
      whole.writeBytes(head.toByteArray());
      write(whole, "Content-Length: " + body.length + "\r\n\r\n");
      whole.writeBytes(body);
    }
    byte[] bytes = whole.toByteArray();
    return new Request(bytes, method.equals("HEAD"), framed && !broken, broken, unsupportedVersion, shown(bytes));
  }

  private static String version(Random random) {
    return switch (random.nextInt(40)) {
      case 0 -> pick(random, UNSUPPORTED_VERSIONS);
      case 1 -> pick(random, MALFORMED_VERSIONS);
      case 2 -> token(random, 1 + random.nextInt(6)) + "/" + random.nextInt(12) + "." + random.nextInt(12);
      case 3, 4, 5, 6 -> "HTTP/1.0";
      default -> "HTTP/1.1";
    };
  }

  /** Case-insensitive: Netty upper-cases the name before the node sees it, so "http/2.0" may get 505 too. */
  private static boolean isUnsupportedVersion(String version) {
    return version.matches("(?i)HTTP/[0-9]\\.[0-9]") && !version.equals("HTTP/1.0") && !version.equals("HTTP/1.1");
  }

  private static String randomPath(Random random) {
    StringBuilder path = new StringBuilder();
    int segments = 1 + random.nextInt(4);
    for (int i = 0; i < segments; i++) {
      path.append('/').append(component(random));
    }
    return path.toString();
  }

  private static String value(Random random, String name) {
    switch (random.nextInt(10)) {
      case 0, 1 -> {
        return Long.toString(random.nextInt(5) - 1);
      }
      case 2 -> {
        return pick(random, new String[] {"99999999999999999999", "2147483648", "-2147483649", "9223372036854775807",
            "9223372036854775808", "1e3", "0x10", "+1", "1.0", "%EF%BC%91", " 1", "1 "});
      }
      case 3 -> {
        return pick(random, new String[] {"%zz", "%4", "%", "%ff%fe", "%c0%af", "%ed%a0%80", "%e2%82", "%00", "%0d%0a"});
      }
      case 4 -> {
        return "k".repeat(random.nextInt(3_000));
      }
      default -> {
        return name.equals("ack") || name.equals("from") || name.equals("ttl") ? Long.toString(random.nextLong())
            : component(random);
      }
    }
  }

  /** A random URL component: plain characters, valid and invalid escapes, UTF-8 and random bytes. */
  private static String component(Random random) {
    StringBuilder text = new StringBuilder();
    int parts = random.nextInt(8);
    for (int i = 0; i < parts; i++) {
      switch (random.nextInt(6)) {
        case 0 -> text.append(token(random, 1 + random.nextInt(6)));
        case 1 -> text.append('%').append(String.format("%02X", random.nextInt(256)));
        case 2 -> {
          for (byte b : new String(Character.toChars(1 + random.nextInt(0x10FFFF - 1)))
              .getBytes(StandardCharsets.UTF_8)) {
            text.append('%').append(String.format("%02x", b & 0xff));
          }
        }
        case 3 -> text.append(pick(random, new String[] {"%", "%z", "+", ";", "=", "&", "?", "/", "..", "~", "%25"}));
        case 4 -> text.append((char) (0x21 + random.nextInt(0x5e)));
        default -> text.append((char) (0x80 + random.nextInt(0x80)));
      }
    }
    return text.toString();
  }

  private static byte[] headerValue(Random random) {
    if (random.nextBoolean()) {
      return pick(random, new String[] {"chunked", "gzip", "close", "keep-alive", "100-continue", "h2c", "websocket",
          "-1", "abc", "18446744073709551616", "0", "application/x-www-form-urlencoded", "multipart/form-data",
          "bytes=0-1", ""}).getBytes(StandardCharsets.ISO_8859_1);
    }
    byte[] value = new byte[random.nextInt(64)];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (random.nextInt(8) == 0 ? random.nextInt(256) : 0x20 + random.nextInt(0x5f));
    }
    return value;
  }

  private static byte[] body(Random random, String method) {
    boolean wantsBody = method.equals("PUT") || method.equals("POST") || random.nextInt(8) == 0;
    if (!wantsBody) {
      return new byte[0];
    }
    int size = switch (random.nextInt(10)) {
      case 0 -> BODY_LIMIT + 1 + random.nextInt(BODY_LIMIT);
      case 1 -> BODY_LIMIT;
      case 2 -> 0;
      default -> random.nextInt(2_048);
    };
    byte[] body = new byte[size];
    random.nextBytes(body);
    return body;
  }

  /** Writes the body in random chunks; false when it ended it with a malformed last chunk. */
  private static boolean writeChunked(ByteArrayOutputStream out, byte[] body, Random random) {
    boolean wellFormed = true;
    int at = 0;
    while (at < body.length) {
      int size = Math.min(body.length - at, 1 + random.nextInt(8_192));
      // Netty refuses a chunk extension with a value ("5;a=1") and closes the connection: broken framing here.
      boolean extension = random.nextInt(20) == 0;
      wellFormed &= !extension;
      write(out, Integer.toHexString(size) + (extension ? ";ext=1" : "") + "\r\n");
      out.write(body, at, size);
      write(out, "\r\n");
      at += size;
    }
    boolean lastIsBad = random.nextInt(30) == 0;
    wellFormed &= !lastIsBad;
    write(out, lastIsBad ? "zz\r\n\r\n" : "0\r\n\r\n");
    return wellFormed;
  }

  private static String token(Random random, int length) {
    String chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~";
    StringBuilder token = new StringBuilder();
    for (int i = 0; i < length; i++) {
      token.append(chars.charAt(random.nextInt(chars.length())));
    }
    return token.toString();
  }

  private static <T> T pick(Random random, T[] items) {
    return items[random.nextInt(items.length)];
  }

  private static void write(ByteArrayOutputStream out, String text) {
    out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** The request for a failure message: non-printable bytes escaped, its head only. */
  private static String shown(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    int headEnd = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n");
    int end = Math.min(bytes.length, headEnd < 0 ? 400 : headEnd + 4 + 40);
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
    return "[" + bytes.length + " bytes] " + text;
  }

  // --- reading answers ---

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.setSoLinger(true, 0);
    socket.connect(new InetSocketAddress("127.0.0.1", port), ANSWER_TIMEOUT_MS);
    socket.setSoTimeout(ANSWER_TIMEOUT_MS);
    return socket;
  }

  /**
   * The next final answer; skips 1xx interim answers other than 101.
   *
   * @throws EOFException when the node closed the connection first
   */
  private static Answer read(InputStream in, boolean head) throws IOException {
    while (true) {
      String statusLine = readLine(in);
      int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
      Map<String, String> headers = new LinkedHashMap<>();
      String line;
      while (!(line = readLine(in)).isEmpty()) {
        int colon = line.indexOf(':');
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
      }
      if (status >= 100 && status < 200 && status != 101) {
        continue;
      }
      if (head || status == 101 || status == 204 || status == 304) {
        return new Answer(status, headers, "");
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
        int size;
        while ((size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16)) > 0) {
          body.writeBytes(in.readNBytes(size));
          readLine(in);
        }
        while (!readLine(in).isEmpty()) {
          // trailers
        }
      } else {
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
          throw new EOFException("body cut short");
        }
        body.writeBytes(bytes);
      }
      return new Answer(status, headers, body.toString(StandardCharsets.UTF_8));
    }
  }

  private static String readLine(InputStream in) throws IOException {
    return RawHttp.readLine(in);
  }
}
