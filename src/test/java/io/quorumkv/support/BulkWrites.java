package io.quorumkv.support;

import io.quorumkv.http.ApiHeaders;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many PUTs and DELETEs at the default quorum, fast: over keep-alive connections to every node
 * at once (write {@code i} through node {@code i % nodes}), each connection sending its next
 * write as soon as the last is answered. Every attempt is recorded as a {@link Write}; a write
 * that is not acknowledged is sent again (a PUT with a value of its own, as every PUT must carry
 * one) a few times before the whole run fails.
 */
public final class BulkWrites {
  /** One write: a PUT of {@code value}, or a DELETE when it is null. */
  public record Op(String key, String value) {
  }

  private static final int ATTEMPTS = 5;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private BulkWrites() {
  }

  /** Sends every op, {@code connectionsPerNode} at a time per node; returns every attempt, printing progress every 5 s. */
  public static List<Write> run(List<String> urls, List<Op> ops, int connectionsPerNode, Duration deadline, PrintStream out)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    ConcurrentLinkedQueue<Write> history = new ConcurrentLinkedQueue<>();
    AtomicInteger next = new AtomicInteger();
    AtomicReference<String> failure = new AtomicReference<>();
    try {
      List<HttpClient> clients = new ArrayList<>();
      for (String url : urls) {
        URI uri = URI.create(url);
        clients.add(vertx.createHttpClient(new HttpClientOptions().setDefaultHost(uri.getHost())
            .setDefaultPort(uri.getPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(connectionsPerNode)));
      }
      long start = System.nanoTime();
      long progress = vertx.setPeriodic(5_000, t -> out.printf(Locale.ROOT, "bulk writes: %,d of %,d sent after %.0f s%n",
          Math.min(next.get(), ops.size()), ops.size(), (System.nanoTime() - start) / 1e9));
      List<Future<Void>> senders = new ArrayList<>();
      for (int i = 0; i < connectionsPerNode * urls.size(); i++) {
        Promise<Void> done = Promise.promise();
        vertx.runOnContext(v -> sendNext(clients, ops, next, history, failure, done));
        senders.add(done.future());
      }
      try {
        Future.all(senders).toCompletionStage().toCompletableFuture().get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      } finally {
        vertx.cancelTimer(progress);
      }
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      out.printf(Locale.ROOT, "bulk writes: %,d done in %.1f s (%,.0f/s)%n", ops.size(), (System.nanoTime() - start) / 1e9,
          ops.size() / ((System.nanoTime() - start) / 1e9));
      return List.copyOf(history);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void sendNext(List<HttpClient> clients, List<Op> ops, AtomicInteger next, ConcurrentLinkedQueue<Write> history,
                               AtomicReference<String> failure, Promise<Void> done) {
    int index = next.getAndIncrement();
    if (index >= ops.size() || failure.get() != null) {
      done.tryComplete();
      return;
    }
    attempt(clients, ops.get(index), index % clients.size(), 1, history, failure)
        .onComplete(ignored -> sendNext(clients, ops, next, history, failure, done));
  }

  /** Sends the op until it is acknowledged or {@link #ATTEMPTS} tries failed (then {@code failure} says why). */
  private static Future<Void> attempt(List<HttpClient> clients, Op op, int node, int attempt,
                                     ConcurrentLinkedQueue<Write> history, AtomicReference<String> failure) {
    String value = op.value() == null || attempt == 1 ? op.value() : op.value() + "~" + attempt;
    Write.Kind kind = value == null ? Write.Kind.DELETE : Write.Kind.PUT;
    RequestOptions request = new RequestOptions().setMethod(value == null ? HttpMethod.DELETE : HttpMethod.PUT)
        .setURI("/v0/entity?id=" + Http.encode(op.key())).setTimeout(REQUEST_TIMEOUT.toMillis());
    long start = System.nanoTime();
    return clients.get(node).request(request)
        .compose(sent -> value == null ? sent.send() : sent.send(Buffer.buffer(value)))
        .compose(response -> response.body().map(body -> response))
        .transform(answered -> {
          Write write = outcome(op.key(), kind, value, node, start, answered.succeeded() ? answered.result() : null);
          history.add(write);
          if (write.acknowledged()) {
            return Future.succeededFuture();
          }
          String why = answered.succeeded() ? Integer.toString(answered.result().statusCode()) : String.valueOf(answered.cause());
          if (attempt == ATTEMPTS) {
            failure.compareAndSet(null, kind + " " + op.key() + " through node " + node + " not acknowledged after "
                + ATTEMPTS + " attempts, the last: " + why);
            return Future.succeededFuture();
          }
          return attempt(clients, op, (node + 1) % clients.size(), attempt + 1, history, failure);
        });
  }

  private static Write outcome(String key, Write.Kind kind, String value, int node, long start, HttpClientResponse response) {
    long end = System.nanoTime();
    if (response == null) {
      return new Write(key, kind, value, node, start, end, Write.Outcome.UNKNOWN, -1);
    }
    int acknowledged = kind == Write.Kind.PUT ? 201 : 202;
    if (response.statusCode() != acknowledged) {
      return new Write(key, kind, value, node, start, end, Write.Outcome.FAILED, -1);
    }
    String version = response.getHeader(ApiHeaders.VERSION);
    return new Write(key, kind, value, node, start, end, Write.Outcome.ACKNOWLEDGED,
        version == null ? -1 : Long.parseLong(version));
  }
}
