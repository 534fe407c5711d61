package io.quorumkv.support;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.placement.Rendezvous;
import io.quorumkv.replication.BatchAnswers;
import io.quorumkv.storage.Record;
import io.quorumkv.versioning.HybridLogicalClock;
import io.quorumkv.web.ApiHeaders;
import io.quorumkv.wire.BatchOperations;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
  private static final int SEED_BATCH = 64;
  private static final int SEED_CONNECTIONS = 4;

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

  /**
   * Stores each PUT directly on its {@code replicas} home nodes (rendezvous over {@code urls}) as a
   * record of {@code replicas} copies, in batches of the internal protocol that coordinators use,
   * versioned from this JVM's clock (the nodes run on the same host): a cluster seeded with what
   * the default-quorum PUTs would leave, many times faster than going through a coordinator. Each
   * record is acknowledged once every home node stored it; returns them as acknowledged writes.
   */
  public static List<Write> seed(List<String> urls, List<Op> puts, int replicas, Duration deadline, PrintStream out)
      throws Exception {
    Rendezvous placement = new Rendezvous(urls.stream().map(url -> NodeUrl.parse("url", url)).toList());
    Map<String, List<BatchOperations.Operation>> byNode = new HashMap<>();
    List<Write> acknowledged = new ArrayList<>(puts.size());
    long start = System.nanoTime();
    long version = HybridLogicalClock.versionAt(System.currentTimeMillis());
    for (Op put : puts) {
      byte[] key = put.key().getBytes(StandardCharsets.UTF_8);
      Record record = Record.live(++version, put.value().getBytes(StandardCharsets.UTF_8), Record.NEVER, replicas);
      for (NodeUrl node : placement.replicasFor(key, replicas)) {
        byNode.computeIfAbsent(node.toString(), n -> new ArrayList<>()).add(new BatchOperations.Operation(key, record));
      }
      acknowledged.add(new Write(put.key(), Write.Kind.PUT, put.value(), 0, start, start, Write.Outcome.ACKNOWLEDGED,
          record.version()));
    }
    Vertx vertx = Vertx.vertx();
    try {
      List<Future<?>> nodes = new ArrayList<>();
      AtomicInteger sent = new AtomicInteger();
      byNode.forEach((url, operations) -> {
        URI uri = URI.create(url);
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(uri.getHost())
            .setDefaultPort(uri.getPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(SEED_CONNECTIONS));
        AtomicInteger next = new AtomicInteger();
        for (int c = 0; c < SEED_CONNECTIONS; c++) {
          Promise<Void> done = Promise.promise();
          vertx.runOnContext(v -> seedNext(client, url, operations, next, sent, done));
          nodes.add(done.future());
        }
      });
      Future.all(nodes).toCompletionStage().toCompletableFuture().get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      out.printf(Locale.ROOT, "seeded %,d keys (%,d records on %d nodes) in %.1f s%n", puts.size(), sent.get(),
          byNode.size(), (System.nanoTime() - start) / 1e9);
      return acknowledged;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void seedNext(HttpClient client, String url, List<BatchOperations.Operation> operations,
                               AtomicInteger next, AtomicInteger sent, Promise<Void> done) {
    int from = next.getAndAdd(SEED_BATCH);
    if (from >= operations.size()) {
      done.tryComplete();
      return;
    }
    List<BatchOperations.Operation> batch = operations.subList(from, Math.min(operations.size(), from + SEED_BATCH));
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setURI(InternalEndpoint.RECORD_BATCH.path())
        .setTimeout(REQUEST_TIMEOUT.toMillis());
    client.request(request)
        .compose(sending -> sending.send(BatchOperations.encode(batch)))
        .compose(response -> response.body().map(body -> {
          if (response.statusCode() != 200) {
            throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + body);
          }
          for (BatchAnswers.Answer answer : BatchAnswers.decode(body)) {
            if (answer.failure() != null) {
              throw new IllegalStateException(url + " did not store a seeded record: " + answer.failure());
            }
          }
          return body;
        }))
        .onSuccess(stored -> {
          sent.addAndGet(batch.size());
          seedNext(client, url, operations, next, sent, done);
        })
        .onFailure(done::tryFail);
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
