package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.web.ApiHeaders;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.quorumkv.http.RandomRequests.pick;

/**
 * Mutates a valid request: first one to three changes of its parts (a parameter or header value
 * swapped for a boundary value, a parameter or header dropped or duplicated, another method, path
 * or version, a batch body truncated or one of its fields changed, a Content-Length that does not
 * match the body), then sometimes bytes flipped, inserted or deleted in its request line, headers
 * or body. {@link WireCheck} then says what the node may do with the result.
 */
final class RequestMutator {
  /** Values at the edges of what parameters and headers take: numbers, encodings, lengths, words. */
  private static final String[] BOUNDARY_VALUES = {"0", "-1", "1", "2", "-0", "00", "01", "2147483647", "2147483648",
      "-2147483648", "-2147483649", "4294967296", Long.toString(Long.MAX_VALUE), "9223372036854775808",
      Long.toString(Long.MIN_VALUE), "-9223372036854775809", "99999999999999999999999999", "", " ", "1e3", "0x10",
      "+1", "1.5", "NaN", "Infinity", "%EF%BC%91", "%C3%A9", "\u00e9", "\u00c3\u00a9", "%00", "%ff", "%", "%zz",
      "%2e%2e%2f", "../../etc/passwd", "cluster", "node", "CLUSTER", "profile", "default", "custom", "cpu", "alloc",
      "lock", "wall", "CPU", "heap", "fz0", "fz1", "fz0%00", "fz0.", ".", "..", "a".repeat(64), "a".repeat(65), "null",
      "true", "k1", "k1%20", "k1 ", "\u0000", "\u007f", "\u00ff"};
  private static final String[] METHODS = {"GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE",
      "CONNECT", "get", "G\u00c9T", "", "GET GET"};
  private static final String[] PATHS = {"/v0/entity", "/v0/entities", "/v0/status", "/v0/cluster", "/metrics",
      InternalEndpoint.RECORD_GET.path(), InternalEndpoint.RECORD_BATCH.path(), AdminApi.PATH, AdminApi.PATH + "/stop",
      AdminApi.PATH + "/file", AdminApi.PATH + "/flame", AdminApi.PATH + "/", AdminApi.PATH + "/stop/",
      "/ADMIN/jfr", "/admin//jfr", AdminApi.PATH + "/nope", "/internal/v0/records/", "/internal/v0/record%00",
      "/v0/entity%20", "/v0/entity;x", "/v0/./entity", "/internal/../admin/jfr", "*", "", "v0/entity"};
  private static final String[] VERSIONS = {"HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/0.9", "HTTP/1.2", "http/1.1",
      "HTTP/1.10", "HTTP/01.1", "HTTP/9.9", "HTTP/1.1 ", "HTTP/1.1 x", "HTTP/", "", "HTTP/1.1\u0000"};
  private static final String[] HEADER_NAMES = {"Content-Type", "Accept", "Connection", "Expect", "Host",
      "Authorization", InternalEndpoint.SECRET_HEADER, ApiHeaders.VERSION, RecordHeaders.TOMBSTONE, RecordHeaders.EXPIRES_AT,
      RecordHeaders.REPLICAS, "Content-Encoding", "X-Unknown", "Cookie"};
  private static final String[] LENGTH_TEXTS = {"-1", "abc", " 5", "+5", "0x10", "1 1", "", "99999999999999999999",
      "2147483648"};
  private static final int[] BOUNDARY_INTS = {0, -1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 65_536, 1 << 24};
  private static final long[] BOUNDARY_LONGS = {0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE,
      System.currentTimeMillis() << 16, (System.currentTimeMillis() + 3_600_000) << 16};
  private static final byte[] INTERESTING_BYTES = {0x00, 0x09, 0x0a, 0x0d, 0x20, '%', '&', ':', '=', '?', '/', ';',
      0x7f, (byte) 0x80, (byte) 0xc3, (byte) 0xff};

  private final int bodyLimit;

  RequestMutator(int bodyLimit) {
    this.bodyLimit = bodyLimit;
  }

  FuzzRequest mutate(ValidRequests.Valid valid, Random random) {
    RequestParts parts = valid.parts();
    List<String> applied = new ArrayList<>();
    int changes = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(3);
    for (int i = 0; i < changes; i++) {
      applied.add(changePart(parts, random));
    }
    RequestParts.Wire wire = parts.wire();
    byte[] bytes = wire.bytes();
    if (changes == 0 || random.nextInt(3) == 0) {
      int flips = 1 + random.nextInt(3);
      for (int i = 0; i < flips; i++) {
        int lineEnd = Math.min(wire.lineEnd(), bytes.length);
        int headEnd = Math.min(wire.headEnd(), bytes.length);
        int region = random.nextInt(bytes.length > headEnd ? 3 : 2);
        int from = region == 0 ? 0 : region == 1 ? lineEnd : headEnd;
        int to = region == 0 ? lineEnd : region == 1 ? headEnd : bytes.length;
        StringBuilder what = new StringBuilder();
        bytes = changeBytes(bytes, from, to, random, what);
        applied.add(what + " in the " + (region == 0 ? "request line" : region == 1 ? "headers" : "body"));
      }
    }
    WireCheck check = WireCheck.of(bytes);
    return new FuzzRequest(bytes, "mutated " + valid.label() + ": " + String.join("; ", applied), check.head(),
        check.reusable(), !check.answerDue(), check.unsupportedVersion(), false);
  }

  /** One change of the request's parts; returns what it did. */
  private String changePart(RequestParts parts, Random random) {
    switch (random.nextInt(16)) {
      case 0, 1, 2 -> {
        if (parts.params.isEmpty()) {
          return addParam(parts, random);
        }
        int at = random.nextInt(parts.params.size());
        String name = parts.params.get(at).name();
        String value = boundaryValue(random);
        parts.params.set(at, new RequestParts.Param(name, value));
        return "param " + name + "=" + shortly(value);
      }
      case 3 -> {
        if (parts.params.isEmpty()) {
          return addParam(parts, random);
        }
        RequestParts.Param param = parts.params.remove(random.nextInt(parts.params.size()));
        return "param " + param.name() + " dropped";
      }
      case 4 -> {
        if (parts.params.isEmpty()) {
          return addParam(parts, random);
        }
        RequestParts.Param param = parts.params.get(random.nextInt(parts.params.size()));
        String value = random.nextBoolean() ? param.value() : boundaryValue(random);
        parts.params.add(random.nextInt(parts.params.size() + 1), new RequestParts.Param(param.name(), value));
        return "param " + param.name() + " twice, again =" + shortly(value);
      }
      case 5 -> {
        return addParam(parts, random);
      }
      case 6, 7 -> {
        if (parts.headers.isEmpty()) {
          return addHeader(parts, random);
        }
        int at = random.nextInt(parts.headers.size());
        String name = parts.headers.get(at).name();
        String value = headerValue(parts.headers.get(at).value(), random);
        parts.headers.set(at, new RequestParts.Header(name, value));
        return "header " + name + ": " + shortly(value);
      }
      case 8 -> {
        if (parts.headers.isEmpty()) {
          return addHeader(parts, random);
        }
        RequestParts.Header header = parts.headers.remove(random.nextInt(parts.headers.size()));
        return "header " + header.name() + " dropped";
      }
      case 9 -> {
        if (parts.headers.isEmpty()) {
          return addHeader(parts, random);
        }
        RequestParts.Header header = parts.headers.get(random.nextInt(parts.headers.size()));
        String value = random.nextBoolean() ? header.value() : headerValue(header.value(), random);
        parts.headers.add(random.nextInt(parts.headers.size() + 1), new RequestParts.Header(header.name(), value));
        return "header " + header.name() + " twice, again: " + shortly(value);
      }
      case 10 -> {
        return addHeader(parts, random);
      }
      case 11 -> {
        int kind = random.nextInt(3);
        if (kind == 0) {
          parts.method = pick(random, METHODS);
          return "method " + parts.method;
        } else if (kind == 1) {
          parts.path = pick(random, PATHS);
          return "path " + parts.path;
        }
        parts.version = pick(random, VERSIONS);
        return "version " + shortly(parts.version);
      }
      case 12, 13 -> {
        return parts.batch && random.nextInt(4) != 0 ? changeBatch(parts, random) : changeBody(parts, random);
      }
      case 14 -> {
        return changeFraming(parts, random);
      }
      default -> {
        return parts.batch ? changeBatch(parts, random) : changeBody(parts, random);
      }
    }
  }

  private String addParam(RequestParts parts, Random random) {
    String name = pick(random, new String[] {"id", "ack", "from", "ttl", "start", "end", "name", "duration",
        "settings", "scope", "type", "ID", "Name", "", "x"});
    String value = random.nextInt(5) == 0 ? null : boundaryValue(random);
    parts.params.add(random.nextInt(parts.params.size() + 1), new RequestParts.Param(name, value));
    return "param " + name + (value == null ? " without value" : "=" + shortly(value)) + " added";
  }

  private static String addHeader(RequestParts parts, Random random) {
    String name = pick(random, HEADER_NAMES);
    String value = headerValue("", random);
    parts.headers.add(random.nextInt(parts.headers.size() + 1), new RequestParts.Header(name, value));
    return "header " + name + ": " + shortly(value) + " added";
  }

  private static String boundaryValue(Random random) {
    return switch (random.nextInt(12)) {
      case 0 -> "k".repeat(1 + random.nextInt(6_000));
      case 1 -> RandomRequests.component(random);
      case 2 -> Long.toString(random.nextLong());
      default -> pick(random, BOUNDARY_VALUES);
    };
  }

  /** A header value near the original (wrong token, case, spaces) or a boundary value. */
  private static String headerValue(String original, Random random) {
    return switch (random.nextInt(8)) {
      case 0 -> original + "x";
      case 1 -> original.isEmpty() ? "" : original.substring(0, random.nextInt(original.length()));
      case 2 -> original.toLowerCase(java.util.Locale.ROOT);
      case 3 -> " " + original + " ";
      case 4 -> pick(random, new String[] {"Bearer", "Bearer ", "bearer x", "Basic Zm9vOmJhcg==", "Bearer \u00e9"});
      default -> pick(random, BOUNDARY_VALUES);
    };
  }

  /** An ordinary body: cut, emptied, bytes changed, grown to the limit or past it. */
  private String changeBody(RequestParts parts, Random random) {
    byte[] body = parts.body;
    switch (random.nextInt(6)) {
      case 0 -> {
        parts.body = Arrays.copyOf(body, body.length == 0 ? 0 : random.nextInt(body.length));
        return "body cut to " + parts.body.length + " bytes";
      }
      case 1 -> {
        parts.body = new byte[0];
        return "body emptied";
      }
      case 2 -> {
        int size = random.nextBoolean() ? bodyLimit : bodyLimit + 1 + random.nextInt(1_024);
        parts.body = Arrays.copyOf(body, size);
        if (parts.framing == RequestParts.Framing.NONE) {
          parts.framing = RequestParts.Framing.LENGTH;
        }
        return "body grown to " + size + " bytes";
      }
      case 3 -> {
        byte[] extra = new byte[1 + random.nextInt(64)];
        random.nextBytes(extra);
        parts.body = concat(body, extra);
        if (parts.framing == RequestParts.Framing.NONE) {
          parts.framing = RequestParts.Framing.LENGTH;
        }
        return extra.length + " random bytes appended to the body";
      }
      default -> {
        if (body.length == 0) {
          parts.body = "\u00e9\u0000\r\n".getBytes(StandardCharsets.ISO_8859_1);
          if (parts.framing == RequestParts.Framing.NONE) {
            parts.framing = RequestParts.Framing.LENGTH;
          }
          return "body of 4 odd bytes";
        }
        parts.body = body.clone();
        int at = random.nextInt(body.length);
        parts.body[at] ^= (byte) (1 << random.nextInt(8));
        return "body bit flipped at " + at;
      }
    }
  }

  /** A batch body: cut, a length, kind, version, tombstone, expiry or replica count changed, operations repeated. */
  private String changeBatch(RequestParts parts, Random random) {
    byte[] body = parts.body;
    List<BatchField> fields = BatchField.of(body);
    if (fields.isEmpty()) { // cut or changed beyond recognition by an earlier change
      return changeBody(parts, random);
    }
    switch (random.nextInt(8)) {
      case 0 -> {
        parts.body = Arrays.copyOf(body, random.nextInt(body.length + 1));
        return "batch cut to " + parts.body.length + " of " + body.length + " bytes";
      }
      case 1, 2 -> {
        BatchField field = pickField(fields, random, BatchField.Kind.LENGTH);
        int value = random.nextInt(3) == 0 ? ByteBuffer.wrap(body, field.at(), 4).getInt() + random.nextInt(3) - 1
            : BOUNDARY_INTS[random.nextInt(BOUNDARY_INTS.length)];
        parts.body = body.clone();
        ByteBuffer.wrap(parts.body).putInt(field.at(), value);
        return "batch length at " + field.at() + " set to " + value;
      }
      case 3 -> {
        BatchField field = pickField(fields, random, random.nextBoolean() ? BatchField.Kind.OPERATION
            : BatchField.Kind.TOMBSTONE);
        byte value = pick(random, new Byte[] {0, 1, 2, 3, 6, 127, -1});
        parts.body = body.clone();
        parts.body[field.at()] = value;
        return "batch " + field.kind().name().toLowerCase() + " byte at " + field.at() + " set to " + value;
      }
      case 4 -> {
        BatchField.Kind kind = random.nextBoolean() ? BatchField.Kind.VERSION : BatchField.Kind.EXPIRES_AT;
        List<BatchField> ofKind = fields.stream().filter(f -> f.kind() == kind).toList();
        if (ofKind.isEmpty()) { // reads only
          return changeBody(parts, random);
        }
        BatchField field = ofKind.get(random.nextInt(ofKind.size()));
        long value = BOUNDARY_LONGS[random.nextInt(BOUNDARY_LONGS.length)];
        parts.body = body.clone();
        ByteBuffer.wrap(parts.body).putLong(field.at(), value);
        return "batch " + kind.name().toLowerCase() + " at " + field.at() + " set to " + value;
      }
      case 7 -> {
        List<BatchField> counts = fields.stream().filter(f -> f.kind() == BatchField.Kind.REPLICAS).toList();
        if (counts.isEmpty()) { // reads only
          return changeBody(parts, random);
        }
        BatchField field = counts.get(random.nextInt(counts.size()));
        int value = pick(random, new Integer[] {0, 1, 2, 3, 255, 256, 0xFFFE, 0xFFFF});
        parts.body = body.clone();
        ByteBuffer.wrap(parts.body).putShort(field.at(), (short) value);
        return "batch replicas at " + field.at() + " set to " + value;
      }
      case 5 -> {
        int times = 1 + random.nextInt(random.nextBoolean() ? 4 : 2_000);
        int size = (int) Math.min((long) body.length * times, bodyLimit + (2L << 20) + 1_024);
        byte[] repeated = new byte[size];
        for (int at = 0; at < size; at += body.length) {
          System.arraycopy(body, 0, repeated, at, Math.min(body.length, size - at));
        }
        parts.body = repeated;
        return "batch operations repeated to " + size + " bytes";
      }
      default -> {
        byte[] read = {1, 0, 0, 0, 0};
        int times = 1 + random.nextInt(20_000);
        byte[] reads = new byte[read.length * times];
        for (int i = 0; i < times; i++) {
          System.arraycopy(read, 0, reads, i * read.length, read.length);
        }
        parts.body = random.nextBoolean() ? reads : concat(body, reads);
        return times + " reads of the empty key in the batch";
      }
    }
  }

  /** A field of the wanted kind, else any field. */
  private static BatchField pickField(List<BatchField> fields, Random random, BatchField.Kind kind) {
    List<BatchField> ofKind = fields.stream().filter(f -> f.kind() == kind).toList();
    List<BatchField> from = ofKind.isEmpty() ? fields : ofKind;
    return from.get(random.nextInt(from.size()));
  }

  /** A Content-Length that does not match the body, or chunked instead of a length, or no framing at all. */
  private static String changeFraming(RequestParts parts, Random random) {
    switch (random.nextInt(4)) {
      case 0 -> {
        long length = parts.body.length + pick(random, new Long[] {-1L, 1L, 100L, -(long) parts.body.length});
        parts.framing = RequestParts.Framing.LENGTH;
        parts.declaredLength = Long.toString(Math.max(length, 0));
        return "Content-Length " + parts.declaredLength + " for a body of " + parts.body.length;
      }
      case 1 -> {
        parts.framing = RequestParts.Framing.LENGTH;
        parts.declaredLength = pick(random, LENGTH_TEXTS);
        return "Content-Length '" + parts.declaredLength + "'";
      }
      case 2 -> {
        parts.framing = RequestParts.Framing.CHUNKED;
        parts.chunkSize = 1 + random.nextInt(512);
        return "chunked in chunks of " + parts.chunkSize;
      }
      default -> {
        parts.headers.add(new RequestParts.Header("Content-Length", Integer.toString(parts.body.length)));
        return "Content-Length twice";
      }
    }
  }

  /** Flips a bit, sets, inserts, deletes or repeats bytes in {@code [from, to)}; says what in {@code what}. */
  private static byte[] changeBytes(byte[] bytes, int from, int to, Random random, StringBuilder what) {
    if (to <= from) {
      what.append("nothing changed (empty region)");
      return bytes;
    }
    int at = from + random.nextInt(to - from);
    switch (random.nextInt(5)) {
      case 0 -> {
        byte[] changed = bytes.clone();
        int bit = random.nextInt(8);
        changed[at] ^= (byte) (1 << bit);
        what.append("bit ").append(bit).append(" of byte ").append(at).append(" flipped");
        return changed;
      }
      case 1 -> {
        byte[] changed = bytes.clone();
        changed[at] = someByte(random);
        what.append("byte ").append(at).append(" set to 0x").append(String.format("%02x", changed[at] & 0xff));
        return changed;
      }
      case 2 -> {
        byte[] inserted = new byte[1 + random.nextInt(4)];
        for (int i = 0; i < inserted.length; i++) {
          inserted[i] = someByte(random);
        }
        what.append(inserted.length).append(" bytes inserted at ").append(at);
        return concat(Arrays.copyOfRange(bytes, 0, at), inserted, Arrays.copyOfRange(bytes, at, bytes.length));
      }
      case 3 -> {
        int count = Math.min(1 + random.nextInt(4), to - at);
        what.append(count).append(" bytes deleted at ").append(at);
        return concat(Arrays.copyOfRange(bytes, 0, at), Arrays.copyOfRange(bytes, at + count, bytes.length));
      }
      default -> {
        int count = Math.min(1 + random.nextInt(16), to - at);
        what.append(count).append(" bytes repeated at ").append(at);
        return concat(Arrays.copyOfRange(bytes, 0, at + count), Arrays.copyOfRange(bytes, at, bytes.length));
      }
    }
  }

  private static byte someByte(Random random) {
    return random.nextBoolean() ? INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)]
        : (byte) random.nextInt(256);
  }

  private static byte[] concat(byte[]... arrays) {
    int size = 0;
    for (byte[] array : arrays) {
      size += array.length;
    }
    byte[] all = new byte[size];
    int at = 0;
    for (byte[] array : arrays) {
      System.arraycopy(array, 0, all, at, array.length);
      at += array.length;
    }
    return all;
  }

  private static String shortly(String text) {
    if (text == null) {
      return "(no value)";
    }
    return text.length() <= 40 ? text : text.substring(0, 20) + "...(" + text.length() + " chars)";
  }
}
