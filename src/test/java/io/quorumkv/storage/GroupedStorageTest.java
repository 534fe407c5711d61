package io.quorumkv.storage;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link GroupedStorage} turns single-key calls into store calls. */
class GroupedStorageTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<String> storeCalls = new CopyOnWriteArrayList<>();
  private final HeldExecutor executor = new HeldExecutor();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void whatOneEventLoopAsksForInOneGoIsOneGroupWhateverTheKeys() throws Exception {
    GroupedStorage grouped = new GroupedStorage(vertx, countingStore(), executor, 4);
    CompletableFuture<List<Future<?>>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      List<Future<?>> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
        answers.add(i % 3 == 0 ? grouped.apply(key, Record.tombstone(i + 1)) : grouped.get(key));
      }
      asked.complete(answers);
    });
    List<Future<?>> answers = asked.get(10, TimeUnit.SECONDS);

    executor.runQueued();

    assertEquals(List.of("getAll of 6", "applyAll of 4"), storeCalls);
    for (Future<?> answer : answers) {
      answer.await(10, TimeUnit.SECONDS);
      assertTrue(answer.succeeded());
    }
  }

  /** A store that records the size of each grouped call, reads nothing and stores everything. */
  private Store countingStore() {
    return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
        (proxy, method, args) -> {
          int keys = ((List<?>) args[0]).size();
          storeCalls.add(method.getName() + " of " + keys);
          return switch (method.getName()) {
            case "getAll" -> Collections.nCopies(keys, null);
            case "applyAll" -> Collections.nCopies(keys, true);
            default -> throw new UnsupportedOperationException(method.getName());
          };
        });
  }

  /** Storage tasks wait until the test runs them, so that everything asked for is queued first. */
  private static final class HeldExecutor implements StorageExecutor {
    private final Queue<Runnable> queued = new ArrayDeque<>();

    @Override
    public synchronized <T> Future<T> submit(Callable<T> task) {
      Promise<T> promise = Promise.promise();
      queued.add(() -> {
        try {
          promise.complete(task.call());
        } catch (Exception e) {
          promise.fail(e);
        }
      });
      return promise.future();
    }

    void runQueued() {
      Runnable next;
      while ((next = poll()) != null) {
        next.run();
      }
    }

    private synchronized Runnable poll() {
      return queued.poll();
    }
  }
}
