package io.quorumkv.config;

/**
 * How fast a node takes in the records of a topology change (it pulls them, so it sets the pace).
 *
 * @param recordsPerSecond at most this many records a second, over all its transfers
 * @param bytesPerSecond   at most this many key and value bytes a second, over all its transfers
 */
public record TransferConfig(long recordsPerSecond, long bytesPerSecond) {
  public static final long DEFAULT_RECORDS_PER_SECOND = 2_000;
  public static final long DEFAULT_BYTES_PER_SECOND = 16L << 20;

  public static TransferConfig defaults() {
    return new TransferConfig(DEFAULT_RECORDS_PER_SECOND, DEFAULT_BYTES_PER_SECOND);
  }
}
