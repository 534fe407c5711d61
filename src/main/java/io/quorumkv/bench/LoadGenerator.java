package io.quorumkv.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends requests at a constant rate, wrk2's way: each connection has its own schedule of
 * intended send times ({@code connections / rate} apart), sends one request at a time, and
 * records every latency from the request's intended send time, not from when it was actually
 * sent, so a stalled server is charged for the requests it kept from being sent (coordinated
 * omission corrected). Latencies go into HdrHistograms, in microseconds.
 *
 * <p>A warm-up at the same rate comes first and its figures are dropped, so JIT compilation of this
 * tool and of the server does not pass for server latency (wrk2 likewise skips its calibration
 * period). The warm-up runs exactly the code of the measurement, recording included: code that first
 * runs when the window opens would be compiled, or thrown out and recompiled, inside it. The
 * measured window starts on a fresh schedule once every warm-up request has been answered: a
 * warm-up that fell behind leaves no backlog to the measurement.
 *
 * <p>A {@link LoopStallMeter} measures how long this tool's own event loops were held up during the
 * window: when that is a noticeable share of it, the tool, not the server, could not keep the rate
 * and the result is the tool's ({@link Result#toolBehind()}).
 */
final class LoadGenerator {
  static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(10);
  private static final long REQUEST_TIMEOUT_MS = 30_000;
  /** How many first answers, all failed alike, stop a run ({@link FirstAnswers}). */
  static final int FIRST_ANSWERS = 20;

  private final Vertx vertx;
  private final LoadOptions options;
  /** {@code --token} as the header value, made once. */
  private final String authorization;
  private final Workload workload;
  private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
  /** Admitted requests from the moment each was sent: the server's time, without a connection's backlog. */
  private final Recorder sentRecorder = new Recorder(MAX_LATENCY_MICROS, 3);
  private final LongAdder sent = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder non2xx = new LongAdder();
  private final LongAdder shed = new LongAdder();
  private final LongAdder heldBack = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder unsent = new LongAdder();
  private final AnswerTally tally = new AnswerTally();
  private final FirstAnswers firstAnswers = new FirstAnswers(FIRST_ANSWERS);

  /**
   * The outcome of a run. {@code latencyMicros}: of the answers other than {@code 503} (the admitted
   * requests), from their intended send time; {@code sentMicros}: the same from when each was sent,
   * without the wait of a request due while its connection was still busy; {@code requests}: every answer; {@code shed}: the {@code 503} answers;
   * {@code heldBack}: requests due while their connection waited out a {@code Retry-After}, never
   * sent; {@code unsent}: requests due before the end that were never sent for lack of time;
   * {@code toolStalledShare}: the share of the window this tool's busiest event loop was held up;
   * {@code toolCpu}: what this tool's JVM used of the machine during the window; {@code tally}: the
   * answers from 300 up by status, and the failures by kind.
   */
  record Result(Histogram latencyMicros, Histogram sentMicros, long requests, long non2xx, long shed, long heldBack, long errors, long unsent,
                long elapsedNanos, double toolStalledShare, ToolCpu toolCpu, AnswerTally tally) {
    /** Held up for more than this share of the window, the tool could not have kept a schedule. */
    static final double TOOL_BEHIND_SHARE = 0.20;
    /** Held up for more than this share, the tool's stalls may show in the tail latencies. */
    static final double TOOL_STALLS_VISIBLE_SHARE = 0.05;

    double requestsPerSecond() {
      return requests / (elapsedNanos / 1e9);
    }

    /** Answers other than 503 a second: the requests the server took on. */
    double admittedPerSecond() {
      return (requests - shed) / (elapsedNanos / 1e9);
    }

    /** Cores this tool kept busy on average during the window. */
    double toolCores() {
      return (double) toolCpu.cpuNanos() / elapsedNanos;
    }

    boolean toolBehind() {
      return toolStalledShare > TOOL_BEHIND_SHARE;
    }
  }

  LoadGenerator(Vertx vertx, LoadOptions options, int[] keyIndexes) {
    this.vertx = vertx;
    this.options = options;
    this.authorization = options.authorization();
    this.workload = new Workload(options, keyIndexes);
  }

  /**
   * Runs the warm-up, then the measured window; prints a progress line to {@code progress} every
   * second and, when {@code log} is given, writes each measured second's histogram to it.
   */
  Future<Result> run(PrintStream progress, HistogramLogWriter log) {
    List<Lane> lanes = openLanes();
    Future<Void> warmedUp = options.warmup().isZero()
        ? Future.succeededFuture()
        : runPhase(lanes, options.warmup().toNanos(),
            () -> progress.printf("\r[warm-up] %,d requests sent   ", sent.sum()));
    return warmedUp.compose(warm -> {
      forgetWarmUp();
      return measure(lanes, progress, log);
    }).compose(result -> Future.join(lanes.stream().map(Lane::close).toList()).map(result));
  }

  /**
   * One event loop per lane, a lane per core (at most one per connection), and in each lane one
   * HTTP client per node of {@code --url}: connection {@code c} belongs to lane {@code c % lanes}
   * and node {@code (c / lanes) % nodes} in both phases, and its client's pool opens its
   * connections on the lane's own loop, so a request and its answer never change threads. A
   * single client's pool put every connection on one loop, which held the tool to one core;
   * spreading them over loops of a shared pool made each exchange cross threads.
   */
  private List<Lane> openLanes() {
    int count = Math.min(Runtime.getRuntime().availableProcessors(), options.connections());
    List<Lane> lanes = new ArrayList<>();
    for (int lane = 0; lane < count; lane++) {
      int connections = options.connections() / count + (lane < options.connections() % count ? 1 : 0);
      List<HttpClient> clients = new ArrayList<>();
      for (int node = 0; node < options.urls().size(); node++) {
        URI url = options.urls().get(node);
        int nodeConnections = Math.max(1, connections / options.urls().size()
            + (node < connections % options.urls().size() ? 1 : 0));
        HttpClientOptions client = new HttpClientOptions().setDefaultHost(url.getHost()).setDefaultPort(url.getPort())
            .setKeepAlive(true).setTcpNoDelay(true);
        if ("https".equals(url.getScheme())) {
          options.tls().secure(client);
        }
        clients.add(vertx.createHttpClient(client, new PoolOptions().setHttp1MaxSize(nodeConnections)));
      }
      lanes.add(new Lane(vertx.getOrCreateContext(), clients, options.urls()));
    }
    return lanes;
  }

  private record Lane(Context context, List<HttpClient> clients, List<URI> urls) {
    /** The client of connection {@code c} of {@code lanes}. */
    HttpClient clientOf(int c, int lanes) {
      return clients.get((c / lanes) % clients.size());
    }

    /** The node that client sends to. */
    URI urlOf(int c, int lanes) {
      return urls.get((c / lanes) % clients.size());
    }

    Future<Void> close() {
      return Future.join(clients.stream().map(HttpClient::close).toList()).mapEmpty();
    }
  }

  /** Called once every warm-up answer is in, so nothing records meanwhile. */
  private void forgetWarmUp() {
    recorder.reset();
    sentRecorder.reset();
    completed.reset();
    non2xx.reset();
    shed.reset();
    heldBack.reset();
    errors.reset();
    unsent.reset();
    tally.reset();
  }

  /** Whether the run stopped because its first answers all failed alike, and why. */
  FirstAnswers firstAnswers() {
    return firstAnswers;
  }

  private Future<Result> measure(List<Lane> lanes, PrintStream progress,
                                 HistogramLogWriter log) {
    if (log != null) {
      log.outputLogFormatVersion();
      log.outputStartTime(System.currentTimeMillis());
      log.setBaseTime(System.currentTimeMillis());
      log.outputLegend();
    }
    Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);
    Histogram sentTotal = new Histogram(MAX_LATENCY_MICROS, 3);
    LoopStallMeter stalls = new LoopStallMeter(vertx);
    ToolCpu cpuAtStart = ToolCpu.now();
    long startNanos = System.nanoTime();
    stalls.start();
    long[] lastSecond = {startNanos};
    return runPhase(lanes, options.duration().toNanos(),
        () -> tick(progress, log, total, sentTotal, startNanos, lastSecond))
        .map(finished -> {
          long elapsed = Math.max(1, System.nanoTime() - startNanos);
          double stalled = stalls.stop(elapsed);
          ToolCpu cpu = ToolCpu.now().since(cpuAtStart);
          synchronized (total) {
            Histogram last = recorder.getIntervalHistogram();
            total.add(last);
            sentTotal.add(sentRecorder.getIntervalHistogram());
            if (log != null && last.getTotalCount() > 0) {
              log.outputIntervalHistogram(last);
            }
          }
          progress.println();
          return new Result(total, sentTotal, completed.sum(), non2xx.sum(), shed.sum(), heldBack.sum(), errors.sum(),
              unsent.sum(), elapsed, stalled, cpu, tally);
        });
  }

  /** One schedule per connection from now for {@code durationNanos}; completes once every answer is in. */
  private Future<Void> runPhase(List<Lane> lanes, long durationNanos, Runnable everySecond) {
    long startNanos = System.nanoTime();
    long endNanos = startNanos + durationNanos;
    long intervalNanos = options.saturate() ? 0 : (long) (1e9 * options.connections() / options.rate());
    long ticker = vertx.setPeriodic(1_000, t -> everySecond.run());
    List<Future<Void>> drivers = new ArrayList<>();
    for (int c = 0; c < options.connections(); c++) {
      long firstNanos = options.saturate() ? startNanos : startNanos + (long) (c * 1e9 / options.rate());
      Promise<Void> done = Promise.promise();
      Lane lane = lanes.get(c % lanes.size());
      HttpClient client = lane.clientOf(c, lanes.size());
      URI url = lane.urlOf(c, lanes.size());
      lane.context().runOnContext(v -> new Driver(client, url, firstNanos, intervalNanos, endNanos, done).next());
      drivers.add(done.future());
    }
    return Future.join(drivers).<Void>mapEmpty().onComplete(finished -> vertx.cancelTimer(ticker));
  }

  private void tick(PrintStream progress, HistogramLogWriter log, Histogram total, Histogram sentTotal, long startNanos,
                    long[] lastSecond) {
    synchronized (total) {
      Histogram interval = recorder.getIntervalHistogram();
      total.add(interval);
      Histogram sentInterval = sentRecorder.getIntervalHistogram();
      sentTotal.add(sentInterval);
      if (log != null) {
        log.outputIntervalHistogram(interval);
      }
      long now = System.nanoTime();
      progress.printf("\r[%5.1fs] %,d requests, %,.0f admitted/s this second, p50 %.2f ms, p99 %.2f ms, max %.2f ms,"
              + " p99 from sending %.2f ms, 503 %,d, errors %d   ",
          (now - startNanos) / 1e9, completed.sum(), interval.getTotalCount() / ((now - lastSecond[0]) / 1e9),
          interval.getValueAtPercentile(50) / 1000.0, interval.getValueAtPercentile(99) / 1000.0,
          interval.getMaxValue() / 1000.0, sentInterval.getValueAtPercentile(99) / 1000.0, shed.sum(), errors.sum());
      lastSecond[0] = now;
    }
  }

  private record Answer(HttpClientResponse response, Buffer body) {
  }

  /**
   * One connection's schedule: request i is due at {@code first + i * interval}. Saturating
   * (interval 0), each request is due as soon as the previous one answered: a closed loop whose
   * latencies count from the actual send and whose throughput is the server's limit.
   *
   * <p>After a {@code 503} with {@code Retry-After}, when the options say to honour it, the
   * connection sends nothing for that long: the requests due meanwhile are held back (counted,
   * never sent), as a client that respects the header gives up on them or sends them elsewhere.
   */
  private final class Driver {
    private final HttpClient client;
    private final URI url;
    private final long firstNanos;
    private final long intervalNanos;
    private final long endNanos;
    private final Promise<Void> done;
    private long index;
    private long quietUntilNanos;

    Driver(HttpClient client, URI url, long firstNanos, long intervalNanos, long endNanos, Promise<Void> done) {
      this.client = client;
      this.url = url;
      this.firstNanos = firstNanos;
      this.intervalNanos = intervalNanos;
      this.endNanos = endNanos;
      this.done = done;
    }

    void next() {
      long now = System.nanoTime();
      long intended = intervalNanos == 0 ? now : firstNanos + index * intervalNanos;
      if (intended >= endNanos || firstAnswers.failedAlike()) {
        done.complete();
        return;
      }
      if (now >= endNanos) {
        unsent.add((endNanos - intended + intervalNanos - 1) / intervalNanos);
        done.complete();
        return;
      }
      if (intended < quietUntilNanos) {
        holdBack(intended);
        return;
      }
      index++;
      long waitMs = (intended - now) / 1_000_000;
      if (waitMs >= 1) {
        vertx.setTimer(waitMs, t -> send(intended));
      } else {
        send(intended);
      }
    }

    /** Skips the requests due before the Retry-After has passed, then goes on with the schedule. */
    private void holdBack(long intended) {
      long quietEnd = Math.min(quietUntilNanos, endNanos);
      if (intervalNanos > 0) {
        long skipped = Math.max(1, (quietEnd - intended + intervalNanos - 1) / intervalNanos);
        heldBack.add(skipped);
        index += skipped;
        next();
      } else {
        vertx.setTimer(Math.max(1, (quietEnd - System.nanoTime()) / 1_000_000), t -> {
          quietUntilNanos = 0;
          next();
        });
      }
    }

    /**
     * Sends the request due at {@code intendedNanos}. Timers fire in whole milliseconds, so a
     * request may leave up to a millisecond early; its latency then counts from when it left.
     */
    private void send(long intendedNanos) {
      long sentNanos = System.nanoTime();
      long measuredFrom = Math.min(intendedNanos, sentNanos);
      Workload.Request request = workload.next();
      sent.increment();
      RequestOptions requestOptions = new RequestOptions().setMethod(request.method()).setURI(request.uri())
          .setTimeout(REQUEST_TIMEOUT_MS);
      if (authorization != null) {
        requestOptions.putHeader(HttpHeaders.AUTHORIZATION, authorization);
      }
      client.request(requestOptions)
          .compose(req -> request.body() == null ? req.send() : req.send(request.body()))
          .compose(response -> response.body().map(body -> new Answer(response, body)))
          .onComplete(outcome -> {
            if (outcome.succeeded()) {
              long now = System.nanoTime();
              long micros = Math.min((now - measuredFrom) / 1_000, MAX_LATENCY_MICROS);
              completed.increment();
              int status = outcome.result().response().statusCode();
              tally.answered(status);
              firstAnswers.answered(status, status >= 400 ? outcome.result().body().toString() : null);
              if (status == 503) {
                shed.increment();
                waitOutRetryAfter(outcome.result().response().getHeader("Retry-After"));
              } else {
                recorder.recordValue(Math.max(micros, 1));
                sentRecorder.recordValue(Math.max(1, Math.min((now - sentNanos) / 1_000, MAX_LATENCY_MICROS)));
              }
              if (status >= 300 && status != 404) {
                non2xx.increment();
              }
            } else {
              errors.increment();
              tally.failed(url, outcome.cause());
              firstAnswers.failed(url, outcome.cause());
            }
            next();
          });
    }

    private void waitOutRetryAfter(String seconds) {
      if (seconds == null || !options.honourRetryAfter()) {
        return;
      }
      try {
        quietUntilNanos = System.nanoTime() + (long) (Double.parseDouble(seconds.trim()) * 1e9);
      } catch (NumberFormatException ignored) {
        // an HTTP date or garbage: send on as if there were none
      }
    }
  }
}
