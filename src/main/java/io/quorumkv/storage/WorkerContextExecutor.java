package io.quorumkv.storage;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.PromiseInternal;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands each task straight to the context of one storage worker verticle, round robin, and
 * completes a promise bound to the caller's context. No message, codec, reply address or
 * timer per task, unlike the event bus.
 */
public final class WorkerContextExecutor implements StorageExecutor {
  private final Vertx vertx;
  private final List<Context> workers;
  private final AtomicInteger nextWorker = new AtomicInteger();

  public WorkerContextExecutor(Vertx vertx, List<Context> workers) {
    this.vertx = vertx;
    this.workers = workers;
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    PromiseInternal<T> promise = ((ContextInternal) vertx.getOrCreateContext()).promise();
    Context[] available = workers.toArray(new Context[0]);
    if (available.length == 0) {
      return Future.failedFuture(new StorageException("storage is stopped"));
    }
    Context worker = available[Math.floorMod(nextWorker.getAndIncrement(), available.length)];
    worker.runOnContext(ignored -> {
      try {
        promise.complete(task.call());
      } catch (Throwable t) {
        promise.fail(t);
      }
    });
    return promise.future();
  }
}
