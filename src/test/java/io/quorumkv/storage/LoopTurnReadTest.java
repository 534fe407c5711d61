package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link StorageService#get}: of the gets one event-loop turn makes, only the first is read on the
 * loop; the rest go to a worker as one group, and every answer is the stored record.
 */
class LoopTurnReadTest {
  private final Vertx vertx = Vertx.vertx();
  private RocksDatabase database;
  private StorageService storage;

  @TempDir
  Path dir;

  @BeforeEach
  void open() {
    database = RocksDatabase.open(dir, StorageConfig.defaults());
    RocksStore store = new RocksStore(database);
    for (int i = 0; i < 3; i++) {
      store.apply(key(i), Record.live(i + 1, value(i), Record.NEVER));
    }
    StorageExecutor onWorkers = new StorageExecutor() {
      @Override
      public <T> Future<T> submit(Callable<T> task) {
        return vertx.executeBlocking(task, false);
      }
    };
    StorageObserver untimed = new StorageObserver() {
      @Override
      public <T> Future<T> timeStorage(String operation, Future<T> pending) {
        return pending;
      }
    };
    storage = new StorageService(store, onWorkers, new GroupedStorage(vertx, store, onWorkers, 2),
        InstantSource.system(), untimed);
  }

  @AfterEach
  void close() {
    vertx.close().await();
    database.close();
  }

  @Test
  void theFirstGetOfATurnIsReadOnTheLoopAndTheRestByAWorker() throws Exception {
    List<Record> burst = inOneTurn(0, 1, 2);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(value(i), burst.get(i).value(), "key " + i);
    }
    assertEquals(1, storage.readsFromMemory(), "one read from memory for the whole turn");

    assertArrayEquals(value(2), inOneTurn(2).get(0).value());
    assertEquals(2, storage.readsFromMemory(), "a later turn reads from memory again");
  }

  @Test
  void aGetOffAnEventLoopIsAlwaysReadFromMemory() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(value(i), storage.get(key(i)).await(10, TimeUnit.SECONDS).value());
    }
    assertEquals(3, storage.readsFromMemory());
  }

  /** The records of the keys, all asked for in one callback on an event loop. */
  private List<Record> inOneTurn(int... keys) throws Exception {
    CompletableFuture<List<Future<Record>>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      List<Future<Record>> answers = new ArrayList<>();
      for (int k : keys) {
        answers.add(storage.get(key(k)));
      }
      asked.complete(answers);
    });
    List<Record> records = new ArrayList<>();
    for (Future<Record> answer : asked.get(10, TimeUnit.SECONDS)) {
      records.add(answer.await(10, TimeUnit.SECONDS));
    }
    return records;
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
  }
}
