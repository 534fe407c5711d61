package io.quorumkv.bench;

import io.quorumkv.web.ClientFailures;

import java.net.URI;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What went wrong in a load run, counted: the answers other than 2xx by status, and the requests that
 * got no answer by {@link ClientFailures.Kind}, each kind with the first failure of it and the node it
 * went to, so the report can say it in a line. Thread-safe: every lane records into it.
 */
final class AnswerTally {
  private final Map<Integer, LongAdder> statuses = new ConcurrentSkipListMap<>();
  private final Map<ClientFailures.Kind, LongAdder> failures = new ConcurrentHashMap<>();
  private final Map<ClientFailures.Kind, Failure> firstFailures = new ConcurrentHashMap<>();

  /** A request that got no answer, and where it went. */
  record Failure(URI node, Throwable cause) {
  }

  /** Counts an answer; only statuses from 300 up are kept. */
  void answered(int status) {
    if (status >= 300) {
      statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
    }
  }

  void failed(URI node, Throwable cause) {
    ClientFailures.Kind kind = ClientFailures.kindOf(cause);
    failures.computeIfAbsent(kind, k -> new LongAdder()).increment();
    firstFailures.putIfAbsent(kind, new Failure(node, cause));
  }

  void reset() {
    statuses.clear();
    failures.clear();
    firstFailures.clear();
  }

  /** Status to count, from 300 up, in order. */
  Map<Integer, Long> statuses() {
    Map<Integer, Long> counts = new TreeMap<>();
    statuses.forEach((status, count) -> counts.put(status, count.sum()));
    return counts;
  }

  /** Kind to count, in the order of the kinds. */
  Map<ClientFailures.Kind, Long> failures() {
    Map<ClientFailures.Kind, Long> counts = new EnumMap<>(ClientFailures.Kind.class);
    failures.forEach((kind, count) -> counts.put(kind, count.sum()));
    return counts;
  }

  /**
   * One line per kind of failure: its count and what the first of its kind was, said by
   * {@link ClientFailures#describe} (blocking: it may look at the node again).
   */
  List<String> describeFailures() {
    List<String> lines = new ArrayList<>();
    failures().forEach((kind, count) -> {
      Failure first = firstFailures.get(kind);
      lines.add(String.format("%,d %s: %s", count, kind.label(), ClientFailures.describe(first.node(), first.cause())));
    });
    return lines;
  }
}
