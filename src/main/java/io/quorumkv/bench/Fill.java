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

import io.quorumkv.config.CommandArguments;
import io.quorumkv.web.ClientFailures;
import io.quorumkv.web.NodeAccess;
import io.vertx.core.http.HttpHeaders;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes keys {@code k0 .. k(N-1)} once each with values of a fixed size, over many keep-alive
 * connections, printing progress; the key names match {@code scripts/wrk/*.lua}. A write answered
 * 503 or 504 (a quorum missed while a fresh cluster still compiles, say) or timed out is tried
 * again, up to {@link #ATTEMPTS} times in all, and counted; any other answer, or the last attempt
 * failing, stops the fill with an error.
 *
 * <p>{@code java -cp target/quorumkv.jar io.quorumkv.bench.Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY] [PREFIX]},
 * with bench's {@link NodeAccess} options ({@code --cacert}, {@code --cert}, {@code --key}, {@code --token})
 * anywhere among them.
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

  static final String USAGE = "usage: Fill URL KEYS [VALUE_BYTES] [CONNECTIONS] [QUERY, e.g. &ack=1&from=1]"
      + " [KEY_PREFIX, default k] [options]\n" + NodeAccess.USAGE;

  public static void main(String[] args) throws Exception {
    System.exit(runFromCommandLine(List.of(args)));
  }

  /** Fills as the command line says; returns the exit status: 0 filled, 1 a key could not be written, 2 bad arguments. */
  static int runFromCommandLine(List<String> args) throws InterruptedException {
    if (args.stream().anyMatch(CommandArguments::isHelp)) {
      System.out.print(USAGE);
      return 0;
    }
    List<String> positional = new ArrayList<>();
    NodeAccess access = NodeAccess.NONE;
    URI url;
    long keys;
    int valueBytes;
    int connections;
    try {
      for (int i = 0; i < args.size(); i++) {
        String arg = args.get(i);
        if (NodeAccess.takes(arg)) {
          if (i + 1 == args.size()) {
            throw new IllegalArgumentException(arg + " needs a value");
          }
          access = access.with(arg, args.get(++i));
        } else if (arg.startsWith("--")) {
          throw new IllegalArgumentException("unknown option " + arg);
        } else {
          positional.add(arg);
        }
      }
      if (positional.size() < 2) {
        throw new IllegalArgumentException("URL and KEYS are required");
      }
      url = URI.create(positional.get(0));
      if (url.getHost() == null || url.getPort() < 0) {
        throw new IllegalArgumentException("URL must look like http://host:port or https://host:port");
      }
      keys = Long.parseLong(positional.get(1));
      valueBytes = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 100;
      connections = positional.size() > 3 ? Integer.parseInt(positional.get(3)) : 64;
      access.checked();
    } catch (IllegalArgumentException e) {
      System.err.println("Fill: " + e.getMessage());
      System.err.print(USAGE);
      return 2;
    }
    String query = positional.size() > 4 ? positional.get(4) : "";
    String prefix = positional.size() > 5 ? positional.get(5) : "k";
    Result result;
    try {
      result = run(url, keys, valueBytes, connections, query, prefix, access);
    } catch (ExecutionException | TimeoutException e) {
      Throwable failure = e.getCause() == null ? e : e.getCause();
      System.err.println();
      System.err.println("Fill: " + failure.getMessage() + (failure.getCause() == null ? ""
          : ": " + ClientFailures.describe(url, failure.getCause())));
      return 1;
    }
    System.err.printf("\rfilled %,d keys in %.1f s (%,.0f writes/s)%s%n", result.keys(), result.seconds(),
        result.keys() / result.seconds(), result.retries() == 0 ? ""
            : String.format(", %,d writes tried again after a 503, 504 or timeout", result.retries()));
    return 0;
  }

  /** Fills and returns what it did; fails as soon as one key cannot be written. */
  static Result run(URI url, long keys, int valueBytes, int connections, String query, String prefix)
      throws InterruptedException, ExecutionException, TimeoutException {
    return run(url, keys, valueBytes, connections, query, prefix, NodeAccess.NONE);
  }

  /** The same through {@code access}: over TLS for an https url, with the token. */
  static Result run(URI url, long keys, int valueBytes, int connections, String query, String prefix,
                    NodeAccess access) throws InterruptedException, ExecutionException, TimeoutException {
    Buffer value = Buffer.buffer("v".repeat(valueBytes));
    Vertx vertx = Vertx.vertx();
    HttpClient client = vertx.createHttpClient(access.clientTo(url, new HttpClientOptions().setKeepAlive(true)),
        new PoolOptions().setHttp1MaxSize(connections));
    Writer writer = new Writer(vertx, client, keys, value, query, prefix, access.authorization());
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
    private final String authorization;
    private final AtomicLong nextKey = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();

    Writer(Vertx vertx, HttpClient client, long keys, Buffer value, String query, String prefix, String authorization) {
      this.authorization = authorization;
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
      if (authorization != null) {
        request.putHeader(HttpHeaders.AUTHORIZATION, authorization);
      }
      client.request(request)
          .compose(req -> req.send(value))
          .compose(response -> response.body().map(body -> ClientFailures.answer(response.statusCode(), body.toString())))
          .onComplete(answered -> {
            int status = answered.succeeded() ? Integer.parseInt(answered.result().substring(0, 3)) : 0;
            boolean transientFailure = answered.failed() || status == 503 || status == 504;
            if (status == 201) {
              done.incrementAndGet();
              writeNext(finished);
            } else if (transientFailure && attempt < ATTEMPTS) {
              retries.incrementAndGet();
              vertx.setTimer(RETRY_PAUSE_MS * attempt, t -> write(key, attempt + 1, finished));
            } else {
              String attempts = attempt > 1 ? " (attempt " + attempt + ")" : "";
              // A failure's cause is said by the main thread (ClientFailures.describe may look at the node).
              finished.tryFail(answered.failed() ? new IllegalStateException("PUT " + key + " failed" + attempts,
                  answered.cause()) : new IllegalStateException("PUT " + key + " answered " + answered.result() + attempts));
            }
          });
    }
  }
}
