package io.quorumkv.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** The requests a load run sends: uniformly random keys {@code k0 .. k(N-1)}, as the wrk scripts and Fill use. */
final class Workload {

  enum Kind {
    GET, PUT, DELETE, MIXED, RANGE, STATUS;

    static Kind parse(String text) {
      try {
        return valueOf(text.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--workload must be get, put, delete, mixed, range or status, got '" + text + "'");
      }
    }
  }

  /** One request to send. */
  record Request(HttpMethod method, String uri, Buffer body) {
  }

  private final LoadOptions options;
  private final int[] keyIndexes;
  private final Buffer value;
  private final String quorum;

  /** @param keyIndexes the key numbers to draw from; null for all of {@code 0 .. keys-1} */
  Workload(LoadOptions options, int[] keyIndexes) {
    this.options = options;
    this.keyIndexes = keyIndexes;
    this.value = Buffer.buffer("v".repeat(options.valueSize()));
    this.quorum = (options.ack() == null ? "" : "&ack=" + options.ack()) + (options.from() == null ? "" : "&from=" + options.from());
  }

  Request next() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String key = "k" + (keyIndexes == null ? random.nextInt(options.keys()) : keyIndexes[random.nextInt(keyIndexes.length)]);
    return switch (options.workload()) {
      case GET -> get(key);
      case PUT -> put(key);
      case DELETE -> new Request(HttpMethod.DELETE, "/v0/entity?id=" + key + quorum, null);
      case MIXED -> random.nextDouble() < options.putShare() ? put(key) : get(key);
      // Keys kN, kN0..kN9, kN00..: a short range whose size depends on N's digits.
      case RANGE -> new Request(HttpMethod.GET, "/v0/entities?start=" + key + "&end=" + key + "~", null);
      // The HTTP stack's limit: a request that touches no storage.
      case STATUS -> new Request(HttpMethod.GET, "/v0/status", null);
    };
  }

  private Request get(String key) {
    return new Request(HttpMethod.GET, "/v0/entity?id=" + key + quorum, null);
  }

  private Request put(String key) {
    return new Request(HttpMethod.PUT, "/v0/entity?id=" + key + quorum, value);
  }
}
