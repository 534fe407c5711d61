package io.quorumkv.admission;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * The last line of defence: a node that runs out of heap stops at once instead of staying up,
 * wedged, answering nothing while it collects garbage (acknowledged writes are in RocksDB's
 * write-ahead log, and a supervisor starts the node again). The launch scripts also pass
 * {@code -XX:+ExitOnOutOfMemoryError}, which covers every thread; this covers the event loops and
 * uncaught errors of a JVM started without it.
 */
public final class OutOfMemoryExit {
  /** The exit status of a node that ran out of heap. */
  public static final int STATUS = 3;
  private static final System.Logger LOG = System.getLogger(OutOfMemoryExit.class.getName());
  private static final AtomicBoolean JVM_WIDE = new AtomicBoolean();

  private OutOfMemoryExit() {
  }

  /**
   * Stops the process on an OutOfMemoryError that reaches Vert.x's or the JVM's last handler;
   * other failures that reach Vert.x's are logged, as Vert.x does without a handler.
   */
  public static void install(Vertx vertx) {
    Handler<Throwable> exit = handler(Runtime.getRuntime()::halt);
    vertx.exceptionHandler(failure -> {
      exit.handle(failure);
      LOG.log(System.Logger.Level.ERROR, "Unhandled exception", failure);
    });
    if (!JVM_WIDE.compareAndSet(false, true)) {
      return;
    }
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
      exit.handle(failure);
      if (previous != null) {
        previous.uncaughtException(thread, failure);
      }
    });
  }

  /** What {@link #install} hands every failure to: {@code halt} with {@link #STATUS} on an OutOfMemoryError. */
  static Handler<Throwable> handler(IntConsumer halt) {
    return failure -> {
      if (failure instanceof OutOfMemoryError) {
        System.err.println("quorumkv: out of heap (" + failure.getMessage() + "): stopping; restart the node");
        LOG.log(System.Logger.Level.ERROR, "out of heap: stopping", failure);
        halt.accept(STATUS);
      }
    };
  }
}
