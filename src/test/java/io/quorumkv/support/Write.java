package io.quorumkv.support;

/**
 * One client write of a key as the client saw it: what it asked for, through which node, when the
 * request started and ended (this JVM's {@link System#nanoTime}) and how it came out.
 *
 * @param value   the PUT's body, unique across the run; null for a DELETE
 * @param version the version the node answered with ({@code X-QKV-Version}), -1 if none
 */
public record Write(String key, Kind kind, String value, int node, long startNanos, long endNanos, Outcome outcome,
                    long version) {

  public enum Kind { PUT, DELETE }

  public enum Outcome {
    /** 201 or 202: the write must survive. */
    ACKNOWLEDGED,
    /** The node answered something else (504): the write may or may not have landed. */
    FAILED,
    /** No answer (timeout, connection lost): the write may or may not have landed. */
    UNKNOWN
  }

  public boolean acknowledged() {
    return outcome == Outcome.ACKNOWLEDGED;
  }

  /** Ends before {@code later} starts, acknowledged: the client knew this write was done before it sent the other. */
  public boolean acknowledgedBefore(Write later) {
    return acknowledged() && endNanos < later.startNanos;
  }
}
