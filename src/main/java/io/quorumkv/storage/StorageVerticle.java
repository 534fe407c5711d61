package io.quorumkv.storage;

import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A worker verticle that runs storage tasks, one at a time, on a worker thread. Several
 * instances run side by side; they share the one {@link Store}. Each instance offers its
 * context to {@link WorkerContextExecutor}, which hands tasks straight to it (see
 * docs/architecture.md for the measurement behind that choice over the event bus).
 */
public final class StorageVerticle extends VerticleBase {
  private final List<Context> workerContexts;

  public StorageVerticle(List<Context> workerContexts) {
    this.workerContexts = workerContexts;
  }

  /** A list that the deployed instances fill with their contexts. */
  public static List<Context> newContextRegistry() {
    return new CopyOnWriteArrayList<>();
  }

  /** Deploys {@code instances} worker verticles, each adding its context to {@code contexts}. */
  public static Future<String> deploy(Vertx vertx, List<Context> contexts, int instances) {
    return vertx.deployVerticle(() -> new StorageVerticle(contexts),
        new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER).setInstances(instances));
  }

  @Override
  public Future<?> start() {
    if (!context.isWorkerContext()) {
      return Future.failedFuture("StorageVerticle must be deployed as a worker");
    }
    workerContexts.add(context);
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    workerContexts.remove(context);
    return Future.succeededFuture();
  }
}
