package io.quorumkv.cluster;

import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether Hazelcast refused a join for its cluster state. The members answer the join request of
 * a new member with the reason, which the refused member logs before it shuts itself down, so
 * the join itself fails with no more than "Node failed to start!". The reason is read in that log
 * ({@code hazelcast.logging.type=jdk}), from {@link #start} to {@link #close}; any refusal logged
 * in this JVM meanwhile counts, as a node has a JVM of its own.
 */
final class StateRefusalWatch extends Handler implements AutoCloseable {
  /** Held so the handler stays: java.util.logging keeps loggers weakly. */
  private static final Logger REFUSALS = Logger.getLogger("com.hazelcast.security");
  /** "Cluster state either is locked or doesn't allow new members to join -> ClusterState{state=FROZEN, lock=...}". */
  private static final Pattern REFUSAL =
      Pattern.compile("doesn't allow new members to join -> ClusterState\\{state=([A-Z_]+)");

  private volatile String refusedState;

  private StateRefusalWatch() {
  }

  static StateRefusalWatch start() {
    StateRefusalWatch watch = new StateRefusalWatch();
    REFUSALS.addHandler(watch);
    return watch;
  }

  /** The cluster state a refusal named (FROZEN, PASSIVE), or null if none was logged. */
  String refusedState() {
    return refusedState;
  }

  @Override
  public void publish(LogRecord record) {
    String message = record.getMessage();
    Matcher refusal = message == null ? null : REFUSAL.matcher(message);
    if (refusal != null && refusal.find()) {
      refusedState = refusal.group(1);
    }
  }

  @Override
  public void flush() {
  }

  @Override
  public void close() {
    REFUSALS.removeHandler(this);
  }
}
