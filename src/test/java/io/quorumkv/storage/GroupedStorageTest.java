package io.quorumkv.storage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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

  @AfterEach
  void close() {
    vertx.close().await();
  }

  /**
   * The executor runs each storage task the moment it is handed one, so a drain queued on the
   * first request would take that request alone: one group means the drain waited for the turn's end.
   */
  @Test
  void whatOneEventLoopTurnAsksForIsOneGroupQueuedWhenTheTurnEnds() throws Exception {
    GroupedStorage grouped = new GroupedStorage(vertx, countingStore(), new ImmediateExecutor(), 4);
    CompletableFuture<List<String>> storeCallsDuringTheTurn = new CompletableFuture<>();
    CompletableFuture<List<Future<?>>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      List<Future<?>> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
        answers.add(i % 3 == 0 ? grouped.apply(key, Record.tombstone(i + 1)) : grouped.get(key));
      }
      storeCallsDuringTheTurn.complete(List.copyOf(storeCalls));
      asked.complete(answers);
    });

    assertEquals(List.of(), storeCallsDuringTheTurn.get(10, TimeUnit.SECONDS));
    for (Future<?> answer : asked.get(10, TimeUnit.SECONDS)) {
      answer.await(10, TimeUnit.SECONDS);
      assertTrue(answer.succeeded());
    }
    assertEquals(List.of("getAll of 6", "applyAll of 4"), storeCalls);
  }

  @Test
  void offAnEventLoopADrainIsQueuedAtOnce() throws Exception {
    GroupedStorage grouped = new GroupedStorage(vertx, countingStore(), new ImmediateExecutor(), 4);

    Future<Record> answer = grouped.get("key".getBytes(StandardCharsets.UTF_8));

    assertEquals(List.of("getAll of 1"), storeCalls);
    answer.await(10, TimeUnit.SECONDS);
    assertTrue(answer.succeeded());
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

  /** Runs each storage task on the calling thread as it is handed over. */
  private static final class ImmediateExecutor implements StorageExecutor {
    @Override
    public <T> Future<T> submit(Callable<T> task) {
      try {
        return Future.succeededFuture(task.call());
      } catch (Exception e) {
        return Future.failedFuture(e);
      }
    }
  }
}
