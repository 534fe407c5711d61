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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@link StorageService#get}: while an event loop's reads from memory find their records, every
 * get of a turn is read on the loop; after one misses, only the first of a turn tries memory and
 * the rest go to a worker as one group, until memory holds the records again. Every answer is the
 * stored record.
 */
class LoopTurnReadTest {
  private final Vertx vertx = Vertx.vertx();
  private RocksDatabase database;
  private StorageService storage;

  @TempDir
  Path dir;

  @BeforeEach
  void open() {
    RocksStore store = openStore();
    for (int i = 0; i < 3; i++) {
      store.apply(key(i), Record.live(i + 1, value(i), Record.NEVER));
    }
  }

  /** Opens the database and a storage service on it; what the memtables held is in files after a reopen. */
  private RocksStore openStore() {
    database = RocksDatabase.open(dir, StorageConfig.defaults());
    RocksStore store = new RocksStore(database);
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
    storage = new StorageService(store, onWorkers, new GroupedStorage(vertx, store, onWorkers, 2, LoopWrites.off()),
        InstantSource.system(), untimed);
    return store;
  }

  @AfterEach
  void close() {
    vertx.close().await();
    database.close();
  }

  @Test
  void everyGetOfATurnIsReadOnTheLoopWhileMemoryHoldsTheRecords() throws Exception {
    List<Record> burst = inOneTurn(0, 1, 2);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(value(i), burst.get(i).value(), "key " + i);
    }
    assertEquals(3, storage.readsFromMemory(), "the whole turn read from memory");
    assertEquals(0, storage.missesInMemory());
  }

  @Test
  void afterAMissOnlyTheFirstGetOfATurnTriesMemoryUntilMemoryHoldsTheRecords() throws Exception {
    database.close();
    openStore(); // the records are in a file now, and the caches are empty

    List<Record> cold = inOneTurn(0, 1, 2);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(value(i), cold.get(i).value(), "key " + i);
    }
    assertEquals(1, storage.missesInMemory(), "only the turn's first get tried memory");
    assertEquals(0, storage.readsFromMemory());

    // The worker's read brought the records' block into the block cache.
    List<Record> warm = inOneTurn(2, 1, 0);
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(value(2 - i), warm.get(i).value(), "key " + (2 - i));
    }
    assertEquals(3, storage.readsFromMemory(), "once the first get found its record, the whole turn read from memory");
    assertEquals(1, storage.missesInMemory());
  }

  /**
   * A large value read on the loop would be one copy per get, each held until its client read
   * it: 48 slow downloads of 16 MiB killed a node at -Xmx128m that way. Read by a worker, the
   * gets of one group share one copy. The write itself, from whichever path, makes the key known.
   */
  @Test
  void aKeyKnownToHoldALargeValueIsReadByAWorkerAndItsGetsShareOneCopy() throws Exception {
    byte[] large = new byte[LargeValueSizes.LARGE_BYTES];
    Arrays.fill(large, (byte) 7);
    storage.apply(key(3), Record.live(10, large, Record.NEVER)).await(10, TimeUnit.SECONDS);

    List<Record> burst = inOneTurn(3, 3, 3);
    assertArrayEquals(large, burst.get(0).value());
    assertSame(burst.get(0).value(), burst.get(1).value(), "one copy for the gets of one group");
    assertSame(burst.get(0).value(), burst.get(2).value(), "one copy for the gets of one group");
    assertEquals(0, storage.readsFromMemory(), "none read on the loop");
    assertEquals(0, storage.missesInMemory(), "none tried on the loop");
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
