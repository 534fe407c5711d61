package io.quorumkv.support;

import io.quorumkv.web.ApiHeaders;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * PUTs and DELETEs through every node of a cluster at the node's default quorum (no
 * {@code ack}/{@code from}), each write recorded with its outcome ({@link Write}). Every PUT
 * carries a value no other write carries, so a value read later names its write.
 *
 * <p>The keys written form a window of a few hundred that slides on: each write picks a key of
 * the window, and the window moves by one key every {@code writesPerKey} writes, so a key takes
 * about that many writes, some from different nodes in quick succession, and is then left alone.
 * Only a key's last write can be checked at the end; with a fixed set of keys, rewritten every
 * few seconds, the end would only show what went wrong in the run's last seconds.
 *
 * <p>Open loop, as wrk2 does: writes are sent on a fixed schedule whether or not earlier ones
 * have been answered. A node that stands still (SIGSTOP) keeps receiving its share of writes the
 * whole time, as it would from independent clients, instead of stalling every writer on its
 * first request; writes sent to it after others were acknowledged elsewhere are what tests how
 * it versions them once it runs again.
 *
 * <p>The nodes written through can change while it runs ({@link WriteTargets}); each write goes
 * through one of the nodes targeted when it is due, and records that node's index.
 */
public final class RecordingWriters implements WriteTargets {
  /** Every key written sorts at or after this... */
  public static final String KEYS_START = "chaos-";
  /** ...and before this ('.' follows '-'). */
  public static final String KEYS_END = "chaos.";

  /** Node index to url, in index order, so that the same seed and targets pick the same nodes. */
  private final ConcurrentSkipListMap<Integer, String> targets = new ConcurrentSkipListMap<>();
  private final Settings settings;
  private final HttpClient client;
  private final ConcurrentLinkedQueue<Write> history = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
  private final Semaphore inFlight;
  private final AtomicLong skipped = new AtomicLong();
  private Thread scheduler;
  private volatile boolean running;

  /**
   * @param keys           keys written at any one time (the window)
   * @param writesPerKey   writes a key takes, on average, before the window leaves it
   * @param deleteShare    share of DELETEs among the writes
   * @param ratePerSecond  writes sent per second
   * @param maxInFlight    writes unanswered at once, at most; a write due beyond it is skipped (and counted)
   * @param requestTimeout after which a write counts as {@link Write.Outcome#UNKNOWN}
   */
  public record Settings(int keys, int writesPerKey, double deleteShare, int ratePerSecond, int maxInFlight, Duration requestTimeout,
                         long seed) {
  }

  /** Writes through {@code urls}, node {@code i} at {@code urls.get(i)}, until targets are added or removed. */
  public RecordingWriters(List<String> urls, Settings settings) {
    for (int node = 0; node < urls.size(); node++) {
      targets.put(node, urls.get(node));
    }
    this.settings = settings;
    this.inFlight = new Semaphore(settings.maxInFlight());
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(settings.requestTimeout())
        .build();
  }

  public static String key(long index) {
    return KEYS_START + index;
  }

  public void start() {
    running = true;
    scheduler = new Thread(this::schedule, "chaos-writes");
    scheduler.start();
  }

  /** Stops sending and waits for the answers still due, at most one request timeout and a margin. */
  public void stop() throws InterruptedException {
    running = false;
    long waitMs = settings.requestTimeout().plusSeconds(10).toMillis();
    if (scheduler != null) {
      scheduler.join(waitMs);
      if (scheduler.isAlive()) {
        throw new AssertionError("the write scheduler did not stop");
      }
    }
    if (!inFlight.tryAcquire(settings.maxInFlight(), waitMs, TimeUnit.MILLISECONDS)) {
      throw new AssertionError((settings.maxInFlight() - inFlight.availablePermits()) + " writes still unanswered "
          + waitMs + " ms after the last was sent");
    }
    inFlight.release(settings.maxInFlight());
  }

  @Override
  public void add(int node, String url) {
    targets.put(node, url);
  }

  @Override
  public void remove(int node) {
    targets.remove(node);
  }

  public List<Write> history() {
    return List.copyOf(history);
  }

  /** Writes that were not acknowledged, by what happened ("504", "timeout", "refused", ...). */
  public Map<String, Long> failuresByCause() {
    Map<String, Long> byCause = new TreeMap<>();
    failures.forEach((cause, count) -> byCause.put(cause, count.get()));
    return byCause;
  }

  /** Writes not sent because {@code maxInFlight} were unanswered when they were due. */
  public long skipped() {
    return skipped.get();
  }

  private void schedule() {
    Random random = new Random(settings.seed());
    long intervalNanos = 1_000_000_000L / settings.ratePerSecond();
    long next = System.nanoTime();
    long sequence = 0;
    long sent = 0;
    while (running && !Thread.currentThread().isInterrupted()) {
      long now = System.nanoTime();
      if (now < next) {
        LockSupport.parkNanos(next - now);
        continue;
      }
      next += intervalNanos;
      String key = key(sent++ / settings.writesPerKey() + random.nextInt(settings.keys()));
      List<Map.Entry<Integer, String>> through = List.copyOf(targets.entrySet());
      Map.Entry<Integer, String> target = through.get(random.nextInt(through.size()));
      boolean delete = random.nextDouble() < settings.deleteShare();
      String value = delete ? null : key + "=" + (++sequence);
      if (inFlight.tryAcquire()) {
        send(key, target.getKey(), target.getValue(), value);
      } else {
        skipped.incrementAndGet();
      }
    }
  }

  private void send(String key, int node, String url, String value) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + Http.encode(key)))
        .timeout(settings.requestTimeout());
    request = value == null ? request.DELETE() : request.PUT(HttpRequest.BodyPublishers.ofString(value));
    Write.Kind kind = value == null ? Write.Kind.DELETE : Write.Kind.PUT;
    long start = System.nanoTime();
    client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
      try {
        history.add(outcome(key, kind, value, node, start, response, error));
      } finally {
        inFlight.release();
      }
    });
  }

  private Write outcome(String key, Write.Kind kind, String value, int node, long start, HttpResponse<Void> response,
                        Throwable error) {
    long end = System.nanoTime();
    Write.Outcome outcome;
    long version = -1;
    if (response != null) {
      int acknowledged = kind == Write.Kind.PUT ? 201 : 202;
      if (response.statusCode() == acknowledged) {
        outcome = Write.Outcome.ACKNOWLEDGED;
        version = response.headers().firstValue(ApiHeaders.VERSION).map(Long::parseLong).orElse(-1L);
      } else {
        outcome = failed(Integer.toString(response.statusCode()), Write.Outcome.FAILED);
      }
    } else {
      if (causedBy(error, ConnectException.class)) {
        outcome = failed("refused", Write.Outcome.FAILED);
      } else if (causedBy(error, HttpTimeoutException.class)) {
        outcome = failed("timeout", Write.Outcome.UNKNOWN);
      } else {
        outcome = failed("connection lost", Write.Outcome.UNKNOWN);
      }
    }
    return new Write(key, kind, value, node, start, end, outcome, version);
  }

  private static boolean causedBy(Throwable error, Class<? extends Throwable> kind) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (kind.isInstance(cause)) {
        return true;
      }
    }
    return false;
  }

  private Write.Outcome failed(String cause, Write.Outcome outcome) {
    failures.computeIfAbsent(cause, c -> new AtomicLong()).incrementAndGet();
    return outcome;
  }
}
