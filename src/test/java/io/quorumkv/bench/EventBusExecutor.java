package io.quorumkv.bench;

import io.quorumkv.storage.StorageExecutor;
import io.quorumkv.storage.WorkerContextExecutor;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageCodec;

import java.util.concurrent.Callable;

/**
 * Sends each task over the local event bus to worker verticles ({@link #consumer}), by
 * reference through a local codec: the measured alternative to the node's
 * {@link WorkerContextExecutor}, see {@link DispatchBench}.
 */
public final class EventBusExecutor implements StorageExecutor {
  public static final String ADDRESS = "quorumkv.storage";

  private final Vertx vertx;
  private final DeliveryOptions options;

  public EventBusExecutor(Vertx vertx, long timeoutMs) {
    this.vertx = vertx;
    this.options = new DeliveryOptions().setLocalOnly(true).setSendTimeout(timeoutMs);
  }

  /** Registers the by-reference codec; call once per Vert.x instance before deploying storage verticles. */
  public static void registerCodec(Vertx vertx) {
    vertx.eventBus().registerDefaultCodec(StorageTask.class, new LocalTaskCodec());
  }

  /** A worker verticle that runs the tasks sent to {@link #ADDRESS}; deploy it as a worker. */
  public static VerticleBase consumer() {
    return new VerticleBase() {
      @Override
      public Future<?> start() {
        return vertx.eventBus().<StorageTask<?>>localConsumer(ADDRESS, message -> {
          StorageTask<?> task = message.body();
          task.run();
          message.reply(task);
        }).completion();
      }
    };
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return vertx.eventBus().<StorageTask<T>>request(ADDRESS, new StorageTask<>(task), options)
        .compose(reply -> {
          StorageTask<T> done = reply.body();
          return done.failure() == null ? Future.succeededFuture(done.result()) : Future.failedFuture(done.failure());
        });
  }

  @SuppressWarnings("rawtypes")
  private static final class LocalTaskCodec implements MessageCodec<StorageTask, StorageTask> {
    static final String NAME = "quorumkv-storage-task";

    @Override
    public void encodeToWire(io.vertx.core.buffer.Buffer buffer, StorageTask task) {
      throw new UnsupportedOperationException("storage tasks never leave the JVM");
    }

    @Override
    public StorageTask decodeFromWire(int pos, io.vertx.core.buffer.Buffer buffer) {
      throw new UnsupportedOperationException("storage tasks never leave the JVM");
    }

    @Override
    public StorageTask transform(StorageTask task) {
      return task;
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public byte systemCodecID() {
      return -1;
    }
  }
}
