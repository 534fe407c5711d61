package io.quorumkv.topology;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The values of the board a node ignored: each counted once per entry and distinct value (the
 * same forged value read again every tick counts once), and logged without the value itself (its
 * length and a fingerprint): the first of each map at once, then at most one line a minute per
 * map saying how many more there were. Thread-safe.
 */
final class BoardRejections {
  private static final System.Logger LOG = System.getLogger(BoardRejections.class.getName());
  static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
  /** Distinct forged keys remembered at most (a forger may write any number): beyond it, counted again. */
  private static final int REMEMBERED = 1_024;
  private static final int KEY_SHOWN = 100;

  /** Why a value was ignored: its label in the metric, and in the log. */
  enum Reason {
    MAC("does not verify with this cluster's secret"),
    WRITER("verifies but was written by a node that may not write it"),
    FORM("verifies but is not what the entry holds");

    private final String says;

    Reason(String says) {
      this.says = says;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private record Logged(long atNanos, int suppressed) {
  }

  private final BoardObserver observer;
  private final Map<String, Object> lastRejected = new ConcurrentHashMap<>();
  private final Map<String, Logged> logged = new ConcurrentHashMap<>();

  BoardRejections(BoardObserver observer) {
    this.observer = observer;
  }

  /** Ignores {@code stored}, found under {@code key} of {@code map}: counts it and logs it unless it was the last one there. */
  void reject(String map, String key, Object stored, Reason reason, String detail) {
    String entry = map + '\n' + key;
    Object before = lastRejected.put(entry, stored);
    if (stored.equals(before)) {
      return;
    }
    if (lastRejected.size() > REMEMBERED) {
      lastRejected.clear();
    }
    observer.boardValueRejected(map, reason.label());
    log(map, key, stored, reason, detail);
  }

  /** A value under the key verified: a forged one written there again counts again. */
  void accepted(String map, String key) {
    lastRejected.remove(map + '\n' + key);
  }

  private synchronized void log(String map, String key, Object stored, Reason reason, String detail) {
    long now = System.nanoTime();
    Logged last = logged.get(map);
    if (last != null && now - last.atNanos() < LOG_EVERY_NANOS) {
      logged.put(map, new Logged(last.atNanos(), last.suppressed() + 1));
      return;
    }
    String more = last == null || last.suppressed() == 0 ? ""
        : " (and " + last.suppressed() + " more on this map since the last such line)";
    LOG.log(System.Logger.Level.WARNING, "ignored a value of Hazelcast map " + map + " under key '" + shown(key)
        + "' that " + reason.says + (detail == null ? "" : " (" + detail + ")") + ": " + describe(stored)
        + "; a member of the Hazelcast group without the cluster secret, or with another one, may be writing to it"
        + more);
    logged.put(map, new Logged(now, 0));
  }

  /** The key as a log may show it: cut short, on one line. */
  private static String shown(String key) {
    String cut = key.length() > KEY_SHOWN ? key.substring(0, KEY_SHOWN) + "..." : key;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }

  /** A value for a log, without its content: its type, length and a fingerprint to tell values apart. */
  static String describe(Object stored) {
    String text = stored.toString();
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "a " + stored.getClass().getSimpleName() + " of " + text.length() + " characters, SHA-256 "
          + HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
