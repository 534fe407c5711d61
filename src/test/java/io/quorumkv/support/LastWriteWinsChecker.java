package io.quorumkv.support;

import io.quorumkv.versioning.HybridLogicalClock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Judges what keys read as after a run against the history of their writes, for a last-write-wins
 * store that promises not to lose acknowledged writes.
 *
 * <p>A write that was not acknowledged may or may not have landed, at any time after it started
 * (a 504's hint is delivered later; a request stuck in a paused node runs when it resumes). An
 * acknowledged write must not be overwritten by a write acknowledged before it started. So, with
 * L the acknowledged write of the key that started last, the value read must come from L, from a
 * write that overlaps L, or from a write that was not acknowledged; a value from a write
 * acknowledged before L started means L was lost (or, if L is a DELETE, the key came back). A 404
 * needs such a DELETE, or no acknowledged write at all. A value nobody wrote is reported too.
 */
public final class LastWriteWinsChecker {
  /** What one read of a key through one node answered: the value of a 200, the error text of other answers. */
  public record Read(String key, int node, int status, String value, long version) {
  }

  public enum Violation {
    /** The key reads as a write acknowledged before its last acknowledged write started. */
    LOST,
    /** As {@link #LOST}, where the last acknowledged write is a DELETE: the key came back. */
    RESURRECTED,
    /** The key reads as a value that no write of it carried. */
    PHANTOM,
    /** The read answered neither 200 nor 404. */
    UNREADABLE
  }

  /**
   * @param winner the write whose value was read, null for a 404 or a phantom
   * @param latest the key's acknowledged write that started last
   */
  public record Finding(Violation violation, Read read, Write winner, Write latest) {
    /** One line, times in seconds since {@code originNanos}. */
    public String describe(long originNanos) {
      String answer = switch (read.status()) {
        case 200 -> "'" + read.value() + "' v" + version(read.version());
        case 404 -> "404";
        default -> read.status() + " (" + read.value().trim() + ")";
      };
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s %s: node %d read %s", violation, read.key(),
          read.node(), answer));
      if (winner != null) {
        line.append(", written by ").append(describe(winner, originNanos));
      }
      if (latest != null) {
        line.append("; last acknowledged: ").append(describe(latest, originNanos));
      }
      return line.toString();
    }

    private static String describe(Write write, long originNanos) {
      return String.format(Locale.ROOT, "%s%s via node %d [%.3f s .. %.3f s] %s v%s", write.kind(),
          write.value() == null ? "" : " '" + write.value() + "'", write.node(), (write.startNanos() - originNanos) / 1e9,
          (write.endNanos() - originNanos) / 1e9, write.outcome(), version(write.version()));
    }

    private static String version(long version) {
      return version < 0 ? "?" : version + " (" + HybridLogicalClock.millisOf(version) + " ms)";
    }
  }

  /**
   * @param findings  every read that breaks the rule
   * @param lateWins  reads explained only by a write that was not acknowledged and ended before the
   *                  last acknowledged write started: allowed (it may land late), counted to be seen
   */
  public record Result(List<Finding> findings, int lateWins) {
    /** The keys with at least one finding of this kind. */
    public Set<String> keys(Violation violation) {
      Set<String> keys = new TreeSet<>();
      findings.stream().filter(finding -> finding.violation() == violation).forEach(finding -> keys.add(finding.read().key()));
      return keys;
    }
  }

  private final Map<String, List<Write>> writesByKey = new HashMap<>();
  private final Map<String, Write> putsByValue = new HashMap<>();

  public LastWriteWinsChecker(Collection<Write> history) {
    for (Write write : history) {
      writesByKey.computeIfAbsent(write.key(), key -> new ArrayList<>()).add(write);
      if (write.kind() == Write.Kind.PUT && putsByValue.put(write.value(), write) != null) {
        throw new IllegalArgumentException("two writes carry the value " + write.value());
      }
    }
  }

  public Result check(Collection<Read> reads) {
    List<Finding> findings = new ArrayList<>();
    int lateWins = 0;
    for (Read read : reads) {
      List<Write> writes = writesByKey.getOrDefault(read.key(), List.of());
      Write latest = writes.stream().filter(Write::acknowledged).max(Comparator.comparingLong(Write::startNanos)).orElse(null);
      Verdict verdict = switch (read.status()) {
        case 200 -> judgeValue(read, latest);
        case 404 -> judgeAbsence(writes, latest);
        default -> new Verdict(Violation.UNREADABLE, null, false);
      };
      if (verdict.violation != null) {
        findings.add(new Finding(verdict.violation, read, verdict.winner, latest));
      } else if (verdict.late) {
        lateWins++;
      }
    }
    return new Result(findings, lateWins);
  }

  private record Verdict(Violation violation, Write winner, boolean late) {
  }

  private Verdict judgeValue(Read read, Write latest) {
    Write winner = putsByValue.get(read.value());
    if (winner == null || !winner.key().equals(read.key())) {
      return new Verdict(Violation.PHANTOM, null, false);
    }
    if (latest != null && winner != latest && winner.acknowledgedBefore(latest)) {
      return new Verdict(latest.kind() == Write.Kind.DELETE ? Violation.RESURRECTED : Violation.LOST, winner, false);
    }
    return new Verdict(null, winner, latest != null && endsBefore(winner, latest));
  }

  private static Verdict judgeAbsence(List<Write> writes, Write latest) {
    if (latest == null) {
      return new Verdict(null, null, false);
    }
    List<Write> possible = writes.stream()
        .filter(write -> write.kind() == Write.Kind.DELETE && (write == latest || !write.acknowledgedBefore(latest)))
        .toList();
    if (possible.isEmpty()) {
      return new Verdict(Violation.LOST, null, false);
    }
    boolean late = possible.stream().allMatch(delete -> delete != latest && endsBefore(delete, latest));
    return new Verdict(null, null, late);
  }

  private static boolean endsBefore(Write write, Write latest) {
    return write.endNanos() < latest.startNanos();
  }
}
