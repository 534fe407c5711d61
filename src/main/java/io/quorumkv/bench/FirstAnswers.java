package io.quorumkv.bench;

import io.quorumkv.web.ClientFailures;

import java.net.URI;

/**
 * Watches a run's first answers: when every one of the first {@link #count} failed the same way (all
 * {@code 401}, all refused, all with a certificate not trusted), the run is pointless, and the tool
 * stops with the reason instead of running its whole duration. Overload ({@code 503}), missed quorums
 * ({@code 504}), a {@code 404} and timeouts do not stop it: they are what a load run may be there to
 * measure. Thread-safe.
 */
final class FirstAnswers {
  private final int count;
  private int seen;
  private String signature;
  private boolean settled;
  private volatile boolean failedAlike;
  private int firstStatus;
  private String firstBody;
  private URI firstNode;
  private Throwable firstCause;

  FirstAnswers(int count) {
    this.count = count;
  }

  void answered(int status, String body) {
    boolean refused = status >= 400 && status != 404 && status != 429 && status != 503 && status != 504;
    see(refused ? "status " + status : null, status, body, null, null);
  }

  /** A request that got no answer. */
  void failed(URI node, Throwable cause) {
    ClientFailures.Kind kind = ClientFailures.kindOf(cause);
    see(kind == ClientFailures.Kind.TIMEOUT ? null : "failure " + kind, 0, null, node, cause);
  }

  /** Whether the first answers all failed alike: the run should stop. */
  boolean failedAlike() {
    return failedAlike;
  }

  /** Why, in one line; blocking (it may look at the node again): call it from the tool's own thread. */
  synchronized String reason() {
    String said = firstCause != null ? ClientFailures.describe(firstNode, firstCause)
        : "answered " + ClientFailures.answer(firstStatus, firstBody);
    return "the first " + count + " requests all failed alike: " + said;
  }

  private synchronized void see(String failureSignature, int status, String body, URI node, Throwable cause) {
    if (settled) {
      return;
    }
    if (failureSignature == null || signature != null && !signature.equals(failureSignature)) {
      settled = true;
      return;
    }
    if (signature == null) {
      signature = failureSignature;
      firstStatus = status;
      firstBody = body;
      firstNode = node;
      firstCause = cause;
    }
    if (++seen == count) {
      settled = true;
      failedAlike = true;
    }
  }
}
