package io.quorumkv.cluster;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Two warnings Hazelcast logs on a member that is still joining, each a race of the join that
 * Hazelcast resolves by itself: the master publishes its partition table to the new member before
 * the member has finished starting ("Ignoring received partition table, startup is not completed
 * yet") or before it has the member list that names the master ({@code CallerNotMemberException} on
 * a {@code PartitionStateOperation}), and publishes it again once the join is done. Nodes that start
 * at the same moment on a loaded machine meet it. While this JVM's member joins ({@link #open}
 * to {@link Window#close}), the two are logged at FINE; after the join, the same messages would mean
 * something (a member of another group that still lists this address) and stay warnings.
 */
final class JoinRaceLogFilter implements Filter {
  /** Held so the filters stay: java.util.logging keeps loggers weakly. */
  private static final Logger PARTITION_SERVICE =
      Logger.getLogger("com.hazelcast.internal.partition.InternalPartitionService");
  private static final Logger PARTITION_STATE =
      Logger.getLogger("com.hazelcast.internal.partition.operation.PartitionStateOperation");
  private static final String STARTUP_NOT_COMPLETED = "Ignoring received partition table, startup is not completed yet";
  private static final String CALLER_NOT_MEMBER = "CallerNotMemberException";
  private static final AtomicInteger JOINS_UNDER_WAY = new AtomicInteger();

  static {
    JoinRaceLogFilter filter = new JoinRaceLogFilter();
    PARTITION_SERVICE.setFilter(filter);
    PARTITION_STATE.setFilter(filter);
  }

  private JoinRaceLogFilter() {
  }

  /** A join of this JVM's member under way, until its window is closed. */
  static Window open() {
    JOINS_UNDER_WAY.incrementAndGet();
    return new Window();
  }

  @Override
  public boolean isLoggable(LogRecord record) {
    if (JOINS_UNDER_WAY.get() > 0 && isJoinRace(record)) {
      record.setLevel(Level.FINE);
    }
    return true;
  }

  private static boolean isJoinRace(LogRecord record) {
    String message = record.getMessage();
    if (message == null) {
      return false;
    }
    return message.contains(STARTUP_NOT_COMPLETED)
        || message.contains(CALLER_NOT_MEMBER) && record.getLoggerName().equals(PARTITION_STATE.getName());
  }

  /** One join's span; closing it twice counts once. */
  static final class Window implements AutoCloseable {
    private boolean closed;

    private Window() {
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        JOINS_UNDER_WAY.decrementAndGet();
      }
    }
  }
}
