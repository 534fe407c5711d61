package io.quorumkv.http;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the fuzzer's threads sent and got, shared by all of them: the request budget, counts by
 * origin and outcome, answers by status, and the failures (the first few in full).
 */
final class FuzzTally {
  private final long requestBudget;
  private final long deadlineNanos;
  private final int maxFailures;
  private final AtomicLong claimed = new AtomicLong();
  final LongAdder random = new LongAdder();
  final LongAdder valid = new LongAdder();
  final LongAdder mutated = new LongAdder();
  final LongAdder cutShort = new LongAdder();
  final LongAdder connections = new LongAdder();
  /** The node closed without answering a request whose framing was broken or which was cut short: allowed. */
  final LongAdder closedWithoutAnswer = new LongAdder();
  /** Neither an answer nor the connection closed in time. */
  final LongAdder hangs = new LongAdder();
  /** Closed without answering a request that was due one. */
  final LongAdder unexpectedCloses = new LongAdder();
  private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
  /** Microseconds from the end of a request's sending to its whole answer. */
  private final Histogram answerMicros = new ConcurrentHistogram(3);
  private volatile long slowestMicros;
  private volatile String slowest = "";
  private final LongAdder failureCount = new LongAdder();
  private final List<String> failures = new ArrayList<>();

  /**
   * @param requestBudget how many requests to send at most
   * @param deadlineNanos {@link System#nanoTime()} after which no request is sent
   * @param maxFailures   the run stops after this many failures
   */
  FuzzTally(long requestBudget, long deadlineNanos, int maxFailures) {
    this.requestBudget = requestBudget;
    this.deadlineNanos = deadlineNanos;
    this.maxFailures = maxFailures;
  }

  /** Takes one request from the budget; false when the run is over (budget, deadline or too many failures). */
  boolean claim() {
    if (!goOn()) {
      return false;
    }
    return claimed.incrementAndGet() <= requestBudget;
  }

  boolean goOn() {
    return claimed.get() < requestBudget && System.nanoTime() < deadlineNanos && failureCount.sum() < maxFailures;
  }

  long sent() {
    return Math.min(claimed.get(), requestBudget);
  }

  void origin(FuzzRequest request) {
    (request.pristine() ? valid : request.origin().equals("random") ? random : mutated).increment();
  }

  void answered(int status, long micros, FuzzRequest request) {
    statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
    answerMicros.recordValue(micros);
    if (micros > slowestMicros) {
      synchronized (this) {
        if (micros > slowestMicros) {
          slowestMicros = micros;
          slowest = status + " after " + micros / 1_000 + " ms to " + request.shown();
        }
      }
    }
  }

  /** Answer times: median, 99th and 99.9th percentiles, and the slowest answer with its request. */
  String answerTimes() {
    return String.format("answer times p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms (%s)",
        answerMicros.getValueAtPercentile(50) / 1e3, answerMicros.getValueAtPercentile(99) / 1e3,
        answerMicros.getValueAtPercentile(99.9) / 1e3, answerMicros.getMaxValue() / 1e3,
        slowest.length() > 300 ? slowest.substring(0, 300) + "..." : slowest);
  }

  void fail(String failure) {
    failureCount.increment();
    synchronized (failures) {
      if (failures.size() < maxFailures) {
        failures.add(failure);
      }
    }
  }



  long failureCount() {
    return failureCount.sum();
  }

  List<String> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  Map<Integer, Long> statuses() {
    Map<Integer, Long> sorted = new TreeMap<>();
    statuses.forEach((status, count) -> sorted.put(status, count.sum()));
    return sorted;
  }

  /** Answers by class: "1xx" ... "5xx". */
  Map<String, Long> statusClasses() {
    Map<String, Long> classes = new TreeMap<>();
    for (int c = 1; c <= 5; c++) {
      classes.put(c + "xx", 0L);
    }
    statuses().forEach((status, count) -> classes.merge(status / 100 + "xx", count, Long::sum));
    return classes;
  }

  long answers() {
    return statuses().values().stream().mapToLong(Long::longValue).sum();
  }
}
