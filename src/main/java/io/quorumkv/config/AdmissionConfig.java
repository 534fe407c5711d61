package io.quorumkv.config;

/**
 * What a node takes on at once before it answers new client requests {@code 503} (docs/reliability.md,
 * "Overload"). A bound of 0 is no bound.
 *
 * @param maxRequestsPerLoop each event loop's share of the client requests ({@code /v0/entity},
 *                           {@code /v0/entities}) the node has in flight, from their first byte to
 *                           their answer: the node takes at most event loops x this many at once
 * @param maxQueuedStorage   storage reads and writes waiting for a worker (peers' work included,
 *                           though never refused itself)
 * @param clientBodyBytes    heap held by client request bodies; 0 for an eighth of the heap
 */
public record AdmissionConfig(int maxRequestsPerLoop, int maxQueuedStorage, long clientBodyBytes) {
  /**
   * Measured on a 2-core machine (docs/reliability.md, "Overload"): a loop's share of the 64
   * connections that saturate a node, and under 3x and 10x overload an admitted request's p99 at
   * about 5x its value at half load, where 64 gave 10x and no bound 25x.
   */
  public static final int DEFAULT_MAX_REQUESTS_PER_LOOP = 32;
  public static final int DEFAULT_MAX_QUEUED_STORAGE = 4096;

  public static AdmissionConfig defaults() {
    return new AdmissionConfig(DEFAULT_MAX_REQUESTS_PER_LOOP, DEFAULT_MAX_QUEUED_STORAGE, 0);
  }
}
