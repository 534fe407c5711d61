package io.quorumkv.support;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client load's figures cut into named phases (before a change, during each change, ...): per
 * phase, reads and writes answered and their latency, requests refused as unavailable (503/504),
 * unanswered (refused connection, timeout) and not sent (too many in flight). A request counts
 * in the phase during which it was sent.
 */
public final class LoadPhases {
  private static final long MAX_MICROS = 3_600_000_000L;

  public static final class Phase {
    private final String name;
    private final long startNanos;
    private volatile long endNanos = -1;
    private final Histogram reads = new Histogram(MAX_MICROS, 3);
    private final Histogram writes = new Histogram(MAX_MICROS, 3);
    private final AtomicLong unavailable = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();

    private Phase(String name, long startNanos) {
      this.name = name;
      this.startNanos = startNanos;
    }

    public String name() {
      return name;
    }

    /** A read (200 or 404) or a write (acknowledged) answered after {@code nanos}. */
    public void answered(boolean read, long nanos) {
      Histogram histogram = read ? reads : writes;
      synchronized (histogram) {
        histogram.recordValue(Math.min(MAX_MICROS, Math.max(1, nanos / 1_000)));
      }
    }

    public void unavailable() {
      unavailable.incrementAndGet();
    }

    public void unanswered() {
      unanswered.incrementAndGet();
    }

    public void skipped() {
      skipped.incrementAndGet();
    }

    private double seconds() {
      long end = endNanos < 0 ? System.nanoTime() : endNanos;
      return Math.max(1e-9, (end - startNanos) / 1e9);
    }

    private static double p99Millis(Histogram histogram) {
      synchronized (histogram) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(99) / 1000.0;
      }
    }

    private static long count(Histogram histogram) {
      synchronized (histogram) {
        return histogram.getTotalCount();
      }
    }

    public double readP99Millis() {
      return p99Millis(reads);
    }

    public double writeP99Millis() {
      return p99Millis(writes);
    }
  }

  private final List<Phase> phases = new ArrayList<>();

  /** Ends the current phase, if any, and starts the named one. */
  public synchronized Phase begin(String name) {
    long now = System.nanoTime();
    end(now);
    Phase phase = new Phase(name, now);
    phases.add(phase);
    return phase;
  }

  /** The phase requests sent now count in; null before the first. */
  public synchronized Phase current() {
    return phases.isEmpty() ? null : phases.get(phases.size() - 1);
  }

  public synchronized void end() {
    end(System.nanoTime());
  }

  private void end(long now) {
    Phase current = current();
    if (current != null && current.endNanos < 0) {
      current.endNanos = now;
    }
  }

  public synchronized List<Phase> phases() {
    return List.copyOf(phases);
  }

  /** A phase whose name starts so is the baseline; else the first phase is. */
  public static final String BASELINE_PREFIX = "before";

  /** One row per phase; p99 also as a multiple of the baseline's. */
  public synchronized String table() {
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
        "%-34s %7s %9s %11s %8s %9s %11s %8s %8s %10s %8s%n", "phase", "seconds", "writes/s", "write p99", "x before",
        "reads/s", "read p99", "x before", "503/504", "unanswered", "not sent"));
    Phase baseline = phases.stream().filter(phase -> phase.name.startsWith(BASELINE_PREFIX)).findFirst()
        .orElse(phases.isEmpty() ? null : phases.get(0));
    for (Phase phase : phases) {
      double seconds = phase.seconds();
      table.append(String.format(Locale.ROOT, "%-34s %7.1f %9.0f %9.1fms %7.2fx %9.0f %9.1fms %7.2fx %8d %10d %8d%n",
          phase.name, seconds, Phase.count(phase.writes) / seconds, phase.writeP99Millis(),
          phase.writeP99Millis() / baseline.writeP99Millis(), Phase.count(phase.reads) / seconds, phase.readP99Millis(),
          phase.readP99Millis() / baseline.readP99Millis(), phase.unavailable.get(), phase.unanswered.get(),
          phase.skipped.get()));
    }
    return table.toString();
  }
}
