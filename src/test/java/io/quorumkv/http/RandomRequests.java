package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.web.ApiHeaders;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;

/**
 * Random requests from scratch: random methods, mostly real paths, random and badly encoded query
 * parameters, random headers and bodies, random HTTP versions. Each knows whether its framing is
 * sound: a random Content-Length or Transfer-Encoding header, or a bad chunk, breaks it on purpose.
 */
final class RandomRequests {
  private static final String[] PATHS = {"/v0/entity", "/v0/entity", "/v0/entity", "/v0/entity", "/v0/entities",
      "/v0/entities", "/v0/status", "/v0/cluster", "/metrics", InternalEndpoint.RECORD_GET.path(), InternalEndpoint.RECORD_BATCH.path(),
      AdminApi.PATH, AdminApi.PATH + "/stop", AdminApi.PATH + "/file", AdminApi.PATH + "/flame", "/", "/v0",
      "/v0/entity/", "/v0/entity/x", "//v0/entity", "/v0/../v0/entity", "/v0/%65ntity", "/v0/entity%00", "*"};
  private static final String[] PARAMS = {"id", "id", "id", "ack", "from", "ttl", "start", "end", "ID", "Id", "x", "",
      "name", "duration", "type"};
  private static final String[] METHODS = {"GET", "GET", "GET", "PUT", "PUT", "PUT", "DELETE", "POST", "HEAD",
      "OPTIONS", "PATCH", "TRACE", "CONNECT", "PROPFIND", "get"};
  /** Well-formed (RFC 9112: "HTTP/" DIGIT "." DIGIT) but neither 1.0 nor 1.1: answered 505. */
  private static final String[] UNSUPPORTED_VERSIONS = {"HTTP/2.0", "HTTP/3.0", "HTTP/1.2", "HTTP/0.9"};
  private static final String[] MALFORMED_VERSIONS = {"HTT/1.1", "http/1.1", "HTTP/1.10", "HTTP/x.y", "HTTP/1", "FOO", ""};
  private static final String[] HEADER_NAMES = {"Content-Type", "Accept", "Expect", "Connection", "Upgrade",
      "Content-Encoding", "Transfer-Encoding", "Content-Length", "Range", "If-None-Match", "Authorization",
      "Cookie", "X-Forwarded-For", ApiHeaders.VERSION, RecordHeaders.TOMBSTONE, RecordHeaders.EXPIRES_AT, RecordHeaders.REPLICAS,
      InternalEndpoint.SECRET_HEADER, "Host"};
  private static final String TOKEN_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~";

  /** Unknown methods worth sending often; random tokens are sent too. */
  private static final String[] ODD_METHODS = {"FOO", "BREW", "PURGE", "SEARCH", "QUERY", "M-SEARCH", "X", "GETT",
      "A1~b", "!#$%&'*+-.^_`|~", "DELETEX", "PUTPUT"};

  private final int bodyLimit;

  RandomRequests(int bodyLimit) {
    this.bodyLimit = bodyLimit;
  }

  FuzzRequest next(Random random) {
    String method = random.nextInt(20) != 0 ? pick(random, METHODS)
        : random.nextBoolean() ? token(random, 1 + random.nextInt(12)) : pick(random, ODD_METHODS);
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
    whole.writeBytes(head.toByteArray());
    if (body.length > 0 && framing < 2) {
      write(whole, "Transfer-Encoding: chunked\r\n\r\n");
      broken |= !writeChunked(whole, body, random);
    } else if (body.length == 0 && framing < 5) {
      write(whole, "\r\n");
    } else {
      write(whole, "Content-Length: " + body.length + "\r\n\r\n");
      whole.writeBytes(body);
    }
    return new FuzzRequest(whole.toByteArray(), "random", method.equals("HEAD"), framed && !broken, broken,
        RequestLine.isUnsupportedVersion(version), false);
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
  static String component(Random random) {
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

  private byte[] body(Random random, String method) {
    boolean wantsBody = method.equals("PUT") || method.equals("POST") || random.nextInt(8) == 0;
    if (!wantsBody) {
      return new byte[0];
    }
    int size = switch (random.nextInt(10)) {
      case 0 -> bodyLimit + 1 + random.nextInt(bodyLimit);
      case 1 -> bodyLimit;
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

  static String token(Random random, int length) {
    StringBuilder token = new StringBuilder();
    for (int i = 0; i < length; i++) {
      token.append(TOKEN_CHARS.charAt(random.nextInt(TOKEN_CHARS.length())));
    }
    return token.toString();
  }

  static <T> T pick(Random random, T[] items) {
    return items[random.nextInt(items.length)];
  }

  static void write(ByteArrayOutputStream out, String text) {
    out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
  }
}
