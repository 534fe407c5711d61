package io.quorumkv.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes keys {@code k0 .. k(N-1)} once each with values of a fixed size, over many keep-alive
 * connections, printing progress; the key names match {@code scripts/wrk/*.lua}. A write answered
 * 503 or 504 (a quorum missed while a fresh cluster still compiles, say) or timed out is tried
 * again, up to {@link #ATTEMPTS} times in all, and counted; any other answer, or the last attempt
 * failing, stops the fill with an error.
 *
 * <p>{@code java -cp target/quorumkv.jar io.quorumkv.bench.Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY] [PREFIX]}
 */
public final class Fill {
  static final int ATTEMPTS = 5;
  private static final long REQUEST_TIMEOUT_MS = 30_000;
  private static final long RETRY_PAUSE_MS = 200;

  /** What a fill did: the keys written, and how many attempts were made again. */
  record Result(long keys, long retries, double seconds) {
  }

  private Fill() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY, e.g. &ack=1&from=1] [KEY_PREFIX, default k]");
      System.exit(2);
    }
    URI url = URI.create(args[0]);
    long keys = Long.parseLong(args[1]);
    int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int connections = args.length > 3 ? Integer.parseInt(args[3]) : 64;
    String query = args.length > 4 ? args[4] : "";
    String prefix = args.length > 5 ? args[5] : "k";
    Result result = run(url, keys, valueBytes, connections, query, prefix);
    System.err.printf("\rfilled %,d keys in %.1f s (%,.0f writes/s)%s%n", result.keys(), result.seconds(),
        result.keys() / result.seconds(), result.retries() == 0 ? ""
            : String.format(", %,d writes tried again after a 503, 504 or timeout", result.retries()));
  }

  /** Fills and returns what it did; fails as soon as one key cannot be written. */
  static Result run(URI url, long keys, int valueBytes, int connections, String query, String prefix)
      throws Exception {
    Buffer value = Buffer.buffer("v".repeat(valueBytes));
    Vertx vertx = Vertx.vertx();
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setDefaultHost(url.getHost()).setDefaultPort(url.getPort()).setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(connections));
    Writer writer = new Writer(vertx, client, keys, value, query, prefix);
    long start = System.nanoTime();
    long progress = vertx.setPeriodic(1_000, t -> System.err.printf("\rfilled %,d of %,d keys", writer.done.get(), keys));
    List<Future<Void>> writers = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Promise<Void> finished = Promise.promise();
      vertx.runOnContext(v -> writer.writeNext(finished));
      writers.add(finished.future());
    }
    try {
      Future.all(writers).toCompletionStage().toCompletableFuture().get(24, TimeUnit.HOURS);
      return new Result(keys, writer.retries.get(), (System.nanoTime() - start) / 1e9);
    } finally {
      vertx.cancelTimer(progress);
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /** Takes the next key and writes it, then the next, until every key is taken. */
  private static final class Writer {
    private final Vertx vertx;
    private final HttpClient client;
    private final long keys;
    private final Buffer value;
    private final String query;
    private final String prefix;
    private final AtomicLong nextKey = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();

    Writer(Vertx vertx, HttpClient client, long keys, Buffer value, String query, String prefix) {
      this.vertx = vertx;
      this.client = client;
      this.keys = keys;
      this.value = value;
      this.query = query;
      this.prefix = prefix;
    }

    void writeNext(Promise<Void> finished) {
      long key = nextKey.getAndIncrement();
      if (key >= keys) {
        finished.tryComplete();
        return;
      }
      write(prefix + key, 1, finished);
    }

    private void write(String key, int attempt, Promise<Void> finished) {
      RequestOptions request = new RequestOptions().setMethod(HttpMethod.PUT)
          .setURI("/v0/entity?id=" + key + query).setTimeout(REQUEST_TIMEOUT_MS);
      client.request(request)
          .compose(req -> req.send(value))
          .compose(response -> response.body().map(body -> response.statusCode()))
          .onComplete(answered -> {
            boolean transientFailure = answered.failed() || answered.result() == 503 || answered.result() == 504;
            if (answered.succeeded() && answered.result() == 201) {
              done.incrementAndGet();
              writeNext(finished);
            } else if (transientFailure && attempt < ATTEMPTS) {
              retries.incrementAndGet();
              vertx.setTimer(RETRY_PAUSE_MS * attempt, t -> write(key, attempt + 1, finished));
            } else {
              finished.tryFail("PUT " + key + " " + (answered.failed() ? "failed: " + answered.cause().getMessage()
                  : "answered " + answered.result()) + (attempt > 1 ? " (attempt " + attempt + ")" : ""));
            }
          });
    }
  }
}
