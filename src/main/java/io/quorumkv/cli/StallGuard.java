package io.quorumkv.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The body of a download, given up when the node sends nothing for {@link #STALLED}: the JDK's
 * client bounds the wait for an answer's status, not for its body. Closing the body ends a read
 * blocked on it.
 */
final class StallGuard implements AutoCloseable {
  static final Duration STALLED = Duration.ofSeconds(60);
  private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "admin-download-watchdog");
    thread.setDaemon(true);
    return thread;
  });

  private final NodeClient.Download download;
  private final ScheduledFuture<?> check;
  private volatile long lastReadNanos = System.nanoTime();
  private volatile boolean stalled;

  StallGuard(NodeClient.Download download) {
    this.download = download;
    this.check = WATCHDOG.scheduleWithFixedDelay(() -> {
      if (System.nanoTime() - lastReadNanos > STALLED.toNanos()) {
        stalled = true;
        download.close();
      }
    }, 1, 1, TimeUnit.SECONDS);
  }

  /** The body; each read that returns counts as progress. */
  InputStream body() {
    return new FilterInputStream(download.body()) {
      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int read = super.read(buffer, offset, length);
        lastReadNanos = System.nanoTime();
        return read;
      }
    };
  }

  /** What to say of a body that ended early: that the node stopped sending, if it did. */
  String why() {
    return stalled ? "the node sent nothing for " + STALLED.toSeconds() + " s" : "the body ended early";
  }

  @Override
  public void close() {
    check.cancel(false);
    download.close();
  }
}
