package io.quorumkv.support;

import io.quorumkv.web.ApiHeaders;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Client load at the default quorum (no {@code ack}/{@code from}) through every node it is told
 * to target, checked as it runs. Writers overwrite random keys of a hot set, each PUT with a value
 * of its own, and record every write ({@link Write}); an acknowledged one raises the key's
 * {@link AcknowledgedFloors floor}. Readers read hot keys, keys written once before the load
 * (cold) and deleted keys, and judge each answer against the key's floor taken when the read was
 * sent: a stale version, a lost write or a deleted key back is a violation; 503 and 504 are only
 * counted, as are requests left unanswered (a node going away). Any other answer is a violation.
 *
 * <p>Open loop, on a fixed schedule whatever the answers, so that latency during a topology change
 * is measured at the same offered load as before it; figures go to {@link LoadPhases}.
 */
public final class CheckedLoad {
  /**
   * @param writesPerSecond PUTs of hot keys sent per second
   * @param readsPerSecond  reads sent per second: half of hot keys, the rest of cold and deleted keys
   * @param maxInFlight     requests unanswered at once, at most; one due beyond it is not sent (counted)
   */
  public record Settings(int writesPerSecond, int readsPerSecond, int maxInFlight, Duration requestTimeout, long seed) {
  }

  private static final int MAX_VIOLATIONS_KEPT = 200;

  private final List<String> hotKeys;
  private final List<String> coldKeys;
  private final List<String> deletedKeys;
  private final AcknowledgedFloors floors;
  private final Settings settings;
  private final LoadPhases phases;
  private final List<String> targets = new CopyOnWriteArrayList<>();
  private final HttpClient client;
  private final Semaphore inFlight;
  private final ConcurrentLinkedQueue<Write> history = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong violationCount = new AtomicLong();
  private final AtomicLong readsChecked = new AtomicLong();
  private final AtomicLong sequence = new AtomicLong();
  private Thread scheduler;
  private volatile boolean running;

  public CheckedLoad(List<String> hotKeys, List<String> coldKeys, List<String> deletedKeys, AcknowledgedFloors floors,
                     LoadPhases phases, Settings settings) {
    this.hotKeys = List.copyOf(hotKeys);
    this.coldKeys = List.copyOf(coldKeys);
    this.deletedKeys = List.copyOf(deletedKeys);
    this.floors = floors;
    this.phases = phases;
    this.settings = settings;
    this.inFlight = new Semaphore(settings.maxInFlight());
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(settings.requestTimeout())
        .build();
  }

  /** Sends requests through this node too from now on. */
  public void target(String url) {
    if (!targets.contains(url)) {
      targets.add(url);
    }
  }

  /** Stops sending requests through this node (it is going down or gone). */
  public void untarget(String url) {
    targets.remove(url);
  }

  public void start() {
    if (phases.current() == null) {
      throw new IllegalStateException("begin a phase first");
    }
    running = true;
    scheduler = new Thread(this::schedule, "checked-load");
    scheduler.start();
  }

  /** Stops sending and waits for the answers still due, at most one request timeout and a margin. */
  public void stop() throws InterruptedException {
    if (scheduler == null) {
      return;
    }
    running = false;
    long waitMs = settings.requestTimeout().plusSeconds(10).toMillis();
    scheduler.join(waitMs);
    if (scheduler.isAlive()) {
      throw new AssertionError("the load's scheduler did not stop");
    }
    scheduler = null;
    if (!inFlight.tryAcquire(settings.maxInFlight(), waitMs, TimeUnit.MILLISECONDS)) {
      throw new AssertionError((settings.maxInFlight() - inFlight.availablePermits()) + " requests still unanswered "
          + waitMs + " ms after the last was sent");
    }
    inFlight.release(settings.maxInFlight());
    phases.end();
  }

  /** Every write sent, whatever its outcome. */
  public List<Write> history() {
    return List.copyOf(history);
  }

  /** How many reads broke a rule (or answered what no read should), and the first few of them. */
  public long violationCount() {
    return violationCount.get();
  }

  public List<String> violations() {
    return new ArrayList<>(violations);
  }

  public long readsChecked() {
    return readsChecked.get();
  }

  private void schedule() {
    Random random = new Random(settings.seed());
    long writeInterval = 1_000_000_000L / settings.writesPerSecond();
    long readInterval = 1_000_000_000L / settings.readsPerSecond();
    long nextWrite = System.nanoTime();
    long nextRead = nextWrite;
    while (running) {
      long now = System.nanoTime();
      // A scheduler held up (GC, no CPU) does not make up for more than a second of lost sends.
      nextWrite = Math.max(nextWrite, now - 1_000_000_000L);
      nextRead = Math.max(nextRead, now - 1_000_000_000L);
      if (now >= nextWrite) {
        nextWrite += writeInterval;
        write(random);
      } else if (now >= nextRead) {
        nextRead += readInterval;
        read(random);
      } else {
        LockSupport.parkNanos(Math.min(nextWrite, nextRead) - now);
      }
    }
  }

  private String pickTarget(Random random) {
    List<String> now = List.copyOf(targets);
    return now.isEmpty() ? null : now.get(random.nextInt(now.size()));
  }

  private void write(Random random) {
    LoadPhases.Phase phase = phases.current();
    String url = pickTarget(random);
    if (url == null || !inFlight.tryAcquire()) {
      phase.skipped();
      return;
    }
    String key = hotKeys.get(random.nextInt(hotKeys.size()));
    String value = key + "#" + sequence.incrementAndGet();
    int node = targetIndex(url);
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + Http.encode(key)))
        .timeout(settings.requestTimeout()).PUT(HttpRequest.BodyPublishers.ofString(value)).build();
    long start = System.nanoTime();
    client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
      try {
        long end = System.nanoTime();
        Write.Outcome outcome;
        long version = -1;
        if (response == null) {
          phase.unanswered();
          outcome = Write.Outcome.UNKNOWN;
          if (causedBy(error, ConnectException.class)) {
            outcome = Write.Outcome.FAILED; // refused: never reached the node
          }
        } else if (response.statusCode() == 201) {
          outcome = Write.Outcome.ACKNOWLEDGED;
          version = version(response);
          phase.answered(false, end - start);
        } else {
          outcome = Write.Outcome.FAILED;
          if (unavailable(response.statusCode())) {
            phase.unavailable();
          } else {
            violation("PUT " + key + " through " + url + " answered " + response.statusCode() + ": " + response.body().trim());
          }
        }
        Write write = new Write(key, Write.Kind.PUT, value, node, start, end, outcome, version);
        history.add(write);
        if (write.acknowledged() && version < 0) {
          violation("PUT " + key + " through " + url + " answered 201 without " + ApiHeaders.VERSION);
        } else {
          floors.record(write);
        }
      } finally {
        inFlight.release();
      }
    });
  }

  private void read(Random random) {
    LoadPhases.Phase phase = phases.current();
    String url = pickTarget(random);
    if (url == null || !inFlight.tryAcquire()) {
      phase.skipped();
      return;
    }
    double kind = random.nextDouble();
    List<String> keys = kind < 0.5 ? hotKeys : kind < 0.85 || deletedKeys.isEmpty() ? coldKeys : deletedKeys;
    String key = keys.get(random.nextInt(keys.size()));
    AcknowledgedFloors.Floor floor = floors.floor(key);
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + Http.encode(key)))
        .timeout(settings.requestTimeout()).GET().build();
    long start = System.nanoTime();
    client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
      try {
        long end = System.nanoTime();
        if (response == null) {
          phase.unanswered();
        } else if (response.statusCode() == 200 || response.statusCode() == 404) {
          phase.answered(true, end - start);
          readsChecked.incrementAndGet();
          String wrong = AcknowledgedFloors.judge(floor, response.statusCode(), version(response));
          if (wrong != null) {
            violation("GET " + key + " through " + url + ": " + wrong);
          }
        } else if (unavailable(response.statusCode())) {
          phase.unavailable();
        } else {
          violation("GET " + key + " through " + url + " answered " + response.statusCode() + ": " + response.body().trim());
        }
      } finally {
        inFlight.release();
      }
    });
  }

  /** A stable number for the node in {@link Write#node()}: its HTTP port. */
  private static int targetIndex(String url) {
    return URI.create(url).getPort();
  }

  private static boolean unavailable(int status) {
    return status == 503 || status == 504;
  }

  private static long version(HttpResponse<?> response) {
    return response.headers().firstValue(ApiHeaders.VERSION).map(Long::parseLong).orElse(-1L);
  }

  private void violation(String what) {
    if (violationCount.incrementAndGet() <= MAX_VIOLATIONS_KEPT) {
      violations.add(what);
    }
  }

  private static boolean causedBy(Throwable error, Class<? extends Throwable> kind) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (kind.isInstance(cause)) {
        return true;
      }
    }
    return false;
  }
}
