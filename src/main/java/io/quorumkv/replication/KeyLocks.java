package io.quorumkv.replication;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One lock per key, node-wide, that never blocks a thread: the operations asked for one key run
 * one after another in the order they asked, each on the event loop that asked. An operation
 * that cannot start within its wait fails with {@link LockWaitTimeoutException} and never runs.
 * Only keys with an operation running or waiting take memory.
 */
public final class KeyLocks {
  private final Vertx vertx;
  private final ConcurrentHashMap<ByteBuffer, Future<Void>> lastInLine = new ConcurrentHashMap<>();

  public KeyLocks(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Runs the operation once every earlier one on the key finished; call on an event loop. */
  public <T> Future<T> withLock(byte[] key, long maxWaitMs, Supplier<Future<T>> operation) {
    Context context = vertx.getOrCreateContext();
    ByteBuffer lockKey = ByteBuffer.wrap(key.clone());
    Promise<Void> released = Promise.promise();
    Future<Void> previous = lastInLine.put(lockKey, released.future());
    Promise<T> result = Promise.promise();
    Runnable run = () -> started(operation).onComplete(done -> {
      release(lockKey, released);
      result.handle(done);
    });
    if (previous == null) {
      run.run();
      return result.future();
    }
    long timer = vertx.setTimer(maxWaitMs, fired -> result.tryFail(new LockWaitTimeoutException(maxWaitMs)));
    previous.onComplete(done -> context.runOnContext(ignored -> {
      vertx.cancelTimer(timer);
      if (result.future().isComplete()) {
        release(lockKey, released); // timed out: pass the turn on without running
      } else {
        run.run();
      }
    }));
    return result.future();
  }

  private static <T> Future<T> started(Supplier<Future<T>> operation) {
    try {
      return operation.get();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private void release(ByteBuffer lockKey, Promise<Void> released) {
    lastInLine.remove(lockKey, released.future());
    released.complete();
  }

  /** An operation waited longer than it was allowed for its key's earlier operations. */
  public static final class LockWaitTimeoutException extends RuntimeException {
    LockWaitTimeoutException(long maxWaitMs) {
      super("earlier conditional writes on the key kept it busy for " + maxWaitMs + " ms", null, false, false);
    }
  }
}
