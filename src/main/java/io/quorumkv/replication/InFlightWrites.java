package io.quorumkv.replication;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The replica writes still running after their client got its answer (an acknowledged write's
 * slower replicas, and the hints stored for those that fail), so a graceful stop can wait for
 * them instead of losing a hint. Shared by the coordinators of every event loop.
 */
public final class InFlightWrites {
  private static final System.Logger LOG = System.getLogger(InFlightWrites.class.getName());
  private int running;
  private final List<Promise<Void>> waiting = new ArrayList<>();

  /** Counts the work as running until it completes, however it completes. */
  void track(Future<?> work) {
    synchronized (this) {
      running++;
    }
    work.onComplete(done -> finished());
  }

  /** Completes once no tracked work is running. */
  public Future<Void> settled() {
    synchronized (this) {
      if (running == 0) {
        return Future.succeededFuture();
      }
      Promise<Void> promise = Promise.promise();
      waiting.add(promise);
      return promise.future();
    }
  }

  /** Completes once no tracked work is running, or after {@code timeoutMs} (logged); never fails. */
  public Future<Void> settledWithin(long timeoutMs) {
    return settled().timeout(timeoutMs, TimeUnit.MILLISECONDS).recover(e -> {
      LOG.log(System.Logger.Level.WARNING, "stopping with replica writes still running");
      return Future.succeededFuture();
    });
  }

  private void finished() {
    List<Promise<Void>> ready;
    synchronized (this) {
      running--;
      if (running > 0 || waiting.isEmpty()) {
        return;
      }
      ready = new ArrayList<>(waiting);
      waiting.clear();
    }
    ready.forEach(Promise::tryComplete);
  }
}
