package io.quorumkv.storage;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;

import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a task when the calling event loop's current turn ends: Netty runs queued tasks after the
 * turn's I/O events (one pass over the connections that are ready), so everything the turn's
 * requests asked for is known by then.
 */
final class TurnEnd {
  private TurnEnd() {
  }

  /** Queues {@code task} behind the current turn; false, running nothing, off an event loop or while it shuts down. */
  static boolean defer(Runnable task) {
    Context context = Vertx.currentContext();
    if (!(context instanceof ContextInternal loop) || !context.isEventLoopContext()) {
      return false;
    }
    try {
      loop.nettyEventLoop().execute(task);
      return true;
    } catch (RejectedExecutionException shuttingDown) {
      return false;
    }
  }
}
