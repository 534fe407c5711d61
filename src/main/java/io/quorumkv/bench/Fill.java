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
 * connections, printing progress; the key names match {@code scripts/wrk/*.lua}.
 *
 * <p>{@code java -cp target/quorumkv.jar io.quorumkv.bench.Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY] [PREFIX]}
 */
public final class Fill {
  private static final long REQUEST_TIMEOUT_MS = 30_000;

  private Fill() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY, e.g. &ack=1&from=1] [KEY_PREFIX, default k]");
      System.exit(2);
    }
    URI url = URI.create(args[0]);
    long keys = Long.parseLong(args[1]);
    Buffer value = Buffer.buffer("v".repeat(args.length > 2 ? Integer.parseInt(args[2]) : 100));
    int connections = args.length > 3 ? Integer.parseInt(args[3]) : 64;
    String query = args.length > 4 ? args[4] : "";
    String prefix = args.length > 5 ? args[5] : "k";

    Vertx vertx = Vertx.vertx();
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setDefaultHost(url.getHost()).setDefaultPort(url.getPort()).setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(connections));
    AtomicLong nextKey = new AtomicLong();
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    long progress = vertx.setPeriodic(1_000, t -> System.err.printf("\rfilled %,d of %,d keys", done.get(), keys));
    List<Future<Void>> writers = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Promise<Void> finished = Promise.promise();
      vertx.runOnContext(v -> writeNext(client, nextKey, done, keys, value, query, prefix, finished));
      writers.add(finished.future());
    }
    try {
      Future.all(writers).toCompletionStage().toCompletableFuture().get(24, TimeUnit.HOURS);
      double seconds = (System.nanoTime() - start) / 1e9;
      System.err.printf("\rfilled %,d keys in %.1f s (%,.0f writes/s)%n", keys, seconds, keys / seconds);
    } finally {
      vertx.cancelTimer(progress);
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void writeNext(HttpClient client, AtomicLong nextKey, AtomicLong done, long keys, Buffer value,
                                String query, String prefix, Promise<Void> finished) {
    long key = nextKey.getAndIncrement();
    if (key >= keys) {
      finished.tryComplete();
      return;
    }
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.PUT)
        .setURI("/v0/entity?id=" + prefix + key + query).setTimeout(REQUEST_TIMEOUT_MS);
    client.request(request)
        .compose(req -> req.send(value))
        .compose(response -> response.statusCode() == 201
            ? response.body().mapEmpty()
            : Future.failedFuture("PUT k" + key + " answered " + response.statusCode()))
        .onSuccess(v -> {
          done.incrementAndGet();
          writeNext(client, nextKey, done, keys, value, query, prefix, finished);
        })
        .onFailure(finished::tryFail);
  }
}
