package io.quorumkv.replication;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;

/**
 * The replica writes still running after their client got its answer (an acknowledged write's
 * slower replicas, and the hints stored for those that fail), so a graceful stop can wait for
 * them instead of losing a hint. Shared by the coordinators of every event loop.
 */
public final class InFlightWrites {
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
