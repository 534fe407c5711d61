package io.quorumkv.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends requests at a constant rate, wrk2's way: each connection has its own schedule of
 * intended send times ({@code connections / rate} apart), sends one request at a time, and
 * records every latency from the request's intended send time, not from when it was actually
 * sent, so a stalled server is charged for the requests it kept from being sent (coordinated
 * omission corrected). Latencies go into HdrHistograms, in microseconds. A warm-up at the same
 * rate comes first and is not recorded, so JIT compilation of this tool and of the server does
 * not pass for server latency (wrk2 likewise skips its calibration period).
 */
final class LoadGenerator {
  static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(10);
  private static final long REQUEST_TIMEOUT_MS = 30_000;

  private final Vertx vertx;
  private final LoadOptions options;
  private final Workload workload;
  private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
  private final LongAdder sent = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder non2xx = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder unsent = new LongAdder();

  /** The outcome of a run. */
  /** {@code unsent}: requests due before the end that were never sent because the server was behind. */
  record Result(Histogram latencyMicros, long requests, long non2xx, long errors, long unsent, long elapsedNanos) {
    double requestsPerSecond() {
      return requests / (elapsedNanos / 1e9);
    }
  }

  LoadGenerator(Vertx vertx, LoadOptions options, int[] keyIndexes) {
    this.vertx = vertx;
    this.options = options;
    this.workload = new Workload(options, keyIndexes);
  }

  /**
   * Runs the load; prints a progress line to {@code progress} every second and, when
   * {@code log} is given, writes each second's histogram to it.
   */
  Future<Result> run(PrintStream progress, HistogramLogWriter log) {
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setDefaultHost(options.url().getHost()).setDefaultPort(options.url().getPort())
            .setKeepAlive(true).setTcpNoDelay(true),
        new PoolOptions().setHttp1MaxSize(options.connections()));
    Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);
    long scheduleStartNanos = System.nanoTime();
    long startNanos = scheduleStartNanos + options.warmup().toNanos();
    long endNanos = startNanos + options.duration().toNanos();
    long intervalNanos = options.saturate() ? 0 : (long) (1e9 * options.connections() / options.rate());
    if (log != null) {
      log.outputLogFormatVersion();
      log.outputStartTime(System.currentTimeMillis());
      log.setBaseTime(System.currentTimeMillis());
      log.outputLegend();
    }
    long[] lastSecond = {startNanos};
    long ticker = vertx.setPeriodic(1_000, t -> tick(progress, log, total, startNanos, lastSecond));
    List<Future<Void>> drivers = new ArrayList<>();
    for (int c = 0; c < options.connections(); c++) {
      long firstNanos = options.saturate() ? scheduleStartNanos : scheduleStartNanos + (long) (c * 1e9 / options.rate());
      Promise<Void> done = Promise.promise();
      vertx.getOrCreateContext().runOnContext(
          v -> new Driver(client, firstNanos, intervalNanos, startNanos, endNanos, done).next());
      drivers.add(done.future());
    }
    return Future.join(drivers).transform(finished -> {
      vertx.cancelTimer(ticker);
      long elapsed = Math.max(1, System.nanoTime() - startNanos);
      synchronized (total) {
        Histogram last = recorder.getIntervalHistogram();
        total.add(last);
        if (log != null && last.getTotalCount() > 0) {
          log.outputIntervalHistogram(last);
        }
      }
      progress.println();
      return client.close().map(new Result(total, completed.sum(), non2xx.sum(), errors.sum(), unsent.sum(), elapsed));
    });
  }

  private void tick(PrintStream progress, HistogramLogWriter log, Histogram total, long startNanos, long[] lastSecond) {
    synchronized (total) {
      if (System.nanoTime() < startNanos) {
        progress.printf("\r[warm-up] %,d requests sent   ", sent.sum());
        return;
      }
      Histogram interval = recorder.getIntervalHistogram();
      total.add(interval);
      if (log != null) {
        log.outputIntervalHistogram(interval);
      }
      long now = System.nanoTime();
      progress.printf("\r[%5.1fs] %,d requests, %,.0f req/s this second, p50 %.2f ms, p99 %.2f ms, max %.2f ms, errors %d   ",
          (now - startNanos) / 1e9, completed.sum(), interval.getTotalCount() / ((now - lastSecond[0]) / 1e9),
          interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0,
          interval.getMaxValue() / 1000.0, errors.sum());
      lastSecond[0] = now;
    }
  }

  /**
   * One connection's schedule: request i is due at {@code first + i * interval}. Saturating
   * (interval 0), each request is due as soon as the previous one answered: a closed loop whose
   * latencies count from the actual send and whose throughput is the server's limit.
   */
  private final class Driver {
    private final HttpClient client;
    private final long firstNanos;
    private final long intervalNanos;
    private final long measureFromNanos;
    private final long endNanos;
    private final Promise<Void> done;
    private long index;

    Driver(HttpClient client, long firstNanos, long intervalNanos, long measureFromNanos, long endNanos,
           Promise<Void> done) {
      this.client = client;
      this.firstNanos = firstNanos;
      this.intervalNanos = intervalNanos;
      this.measureFromNanos = measureFromNanos;
      this.endNanos = endNanos;
      this.done = done;
    }

    void next() {
      long intended = intervalNanos == 0 ? System.nanoTime() : firstNanos + index * intervalNanos;
      if (intended >= endNanos) {
        done.complete();
        return;
      }
      if (System.nanoTime() >= endNanos) {
        unsent.add((endNanos - intended + intervalNanos - 1) / intervalNanos);
        done.complete();
        return;
      }
      index++;
      long waitNanos = intended - System.nanoTime();
      if (waitNanos >= 1_000_000) {
        vertx.setTimer(waitNanos / 1_000_000, t -> send(intended));
      } else {
        send(intended);
      }
    }

    /**
     * Sends the request due at {@code intendedNanos}. Timers fire in whole milliseconds, so a
     * request may leave up to a millisecond early; its latency then counts from when it left.
     */
    private void send(long intendedNanos) {
      long measuredFrom = Math.min(intendedNanos, System.nanoTime());
      Workload.Request request = workload.next();
      sent.increment();
      RequestOptions requestOptions = new RequestOptions().setMethod(request.method()).setURI(request.uri())
          .setTimeout(REQUEST_TIMEOUT_MS);
      client.request(requestOptions)
          .compose(req -> request.body() == null ? req.send() : req.send(request.body()))
          .compose(response -> response.body().map(response.statusCode()))
          .onComplete(outcome -> {
            boolean measured = intendedNanos >= measureFromNanos;
            if (!measured) {
              next();
              return;
            }
            if (outcome.succeeded()) {
              long micros = Math.min((System.nanoTime() - measuredFrom) / 1_000, MAX_LATENCY_MICROS);
              recorder.recordValue(Math.max(micros, 1));
              completed.increment();
              int status = outcome.result();
              if (status >= 300 && status != 404) {
                non2xx.increment();
              }
            } else {
              errors.increment();
            }
            next();
          });
    }
  }
}
