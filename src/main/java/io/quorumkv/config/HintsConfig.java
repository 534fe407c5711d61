package io.quorumkv.config;

/**
 * Hinted handoff settings.
 *
 * @param windowMs     a hint older than this is dropped instead of delivered (Cassandra's max hint window)
 * @param retryMs      how often pending hints are retried to live replicas
 * @param drainOnStopMs how long a graceful stop spends delivering pending hints to live replicas
 */
public record HintsConfig(long windowMs, long retryMs, long drainOnStopMs) {
  public static final long DEFAULT_WINDOW_MS = 3 * 3_600_000L;
  public static final long DEFAULT_RETRY_MS = 5_000;
  public static final long DEFAULT_DRAIN_ON_STOP_MS = 5_000;

  public static HintsConfig defaults() {
    return new HintsConfig(DEFAULT_WINDOW_MS, DEFAULT_RETRY_MS, DEFAULT_DRAIN_ON_STOP_MS);
  }
}
