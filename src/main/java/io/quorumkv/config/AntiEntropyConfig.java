package io.quorumkv.config;

/**
 * Anti-entropy settings.
 *
 * @param intervalMs       how often each pair of nodes compares its hash trees
 * @param recordsPerSecond at most this many records repaired per second per exchange (copied either way)
 * @param bytesPerSecond   at most this many record bytes repaired per second per exchange
 */
public record AntiEntropyConfig(long intervalMs, long recordsPerSecond, long bytesPerSecond) {
  public static final long DEFAULT_INTERVAL_MS = 10_000;
  public static final long DEFAULT_RECORDS_PER_SECOND = 5_000;
  public static final long DEFAULT_BYTES_PER_SECOND = 16L << 20;

  public static AntiEntropyConfig defaults() {
    return new AntiEntropyConfig(DEFAULT_INTERVAL_MS, DEFAULT_RECORDS_PER_SECOND, DEFAULT_BYTES_PER_SECOND);
  }
}
