package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import io.quorumkv.support.DelegatingStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.quorumkv.storage.MemoryReadTest.RECORDS;
import static io.quorumkv.storage.MemoryReadTest.bytes;
import static io.quorumkv.storage.MemoryReadTest.keyOf;
import static io.quorumkv.storage.MemoryReadTest.withRecordsOnlyInFiles;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writes applied on the event loop that asked for them: {@link RocksStore#tryApplyAll} writes only
 * what needs no wait, and {@link GroupedStorage} hands the rest to a worker.
 */
class LoopWriteTest {
  @TempDir
  Path dir;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void aWriteOverARecordInMemoryMergesAsAWorkersWriteDoes() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(bytes("k"), Record.live(5, bytes("five"), Record.NEVER));

      List<Record> kept = store.tryApplyAll(List.of(bytes("k"), bytes("k"), bytes("new")), List.of(
          Record.live(3, bytes("older"), Record.NEVER), Record.live(9, bytes("nine"), Record.NEVER),
          Record.tombstone(2)));

      assertEquals(List.of(5L, 9L, 2L), kept.stream().map(Record::version).toList());
      assertArrayEquals(bytes("nine"), store.get(bytes("k")).value());
      assertTrue(store.get(bytes("new")).tombstone());
    }
  }

  @Test
  void aWriteOverARecordOnlyTheFilesHoldIsRefusedWithNothingWritten() {
    try (RocksDatabase database = withRecordsOnlyInFiles(dir)) {
      RocksStore store = new RocksStore(database);
      byte[] key = keyOf(RECORDS / 2);

      assertNull(store.tryApplyAll(List.of(key), List.of(Record.live(1, bytes("older"), Record.NEVER))),
          "comparing versions would read the disk");
      assertEquals(RECORDS / 2 + 1, store.get(key).version(), "the older write was not stored");
      assertEquals(List.of(RECORDS / 2 + 1L), store.tryApplyAll(List.of(key),
          List.of(Record.live(1, bytes("older"), Record.NEVER))).stream().map(Record::version).toList(),
          "once the block is cached, the loop can tell the stored record wins");
    }
  }

  @Test
  void aWriteWhoseKeyIsLockedIsRefused() throws Exception {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      CountDownLatch paused = new CountDownLatch(1);
      CountDownLatch resume = new CountDownLatch(1);
      Thread pauser = new Thread(() -> store.whileWritesPaused(() -> {
        paused.countDown();
        await(resume);
      }));
      pauser.start();
      assertTrue(paused.await(10, TimeUnit.SECONDS));

      assertNull(store.tryApplyAll(List.of(bytes("k")), List.of(Record.tombstone(1))));
      resume.countDown();
      pauser.join(10_000);
      assertNull(store.get(bytes("k")), "nothing was written");
    }
  }

  @Test
  void aWriteWhileAnotherIsInProgressIsRefusedRatherThanQueuedBehindIt() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      try (RocksDatabase.WriteInProgress workersWrite = database.writeInProgress()) {
        assertNull(store.tryApplyAll(List.of(bytes("k")), List.of(Record.tombstone(1))));
      }
      assertNull(store.get(bytes("k")), "nothing was written");
      assertEquals(List.of(1L), store.tryApplyAll(List.of(bytes("k")), List.of(Record.tombstone(1))).stream()
          .map(Record::version).toList(), "once that write ended, the loop writes");
    }
  }

  @Test
  void aCheckpointCountsAsAWriteInProgressSoNoLoopWriteQueuesBehindItsFlush() throws Exception {
    try (RocksDatabase database = RocksDatabase.open(dir.resolve("db"), StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      for (int i = 0; i < 40_000; i++) {
        store.apply(bytes("key-" + i), Record.live(1, new byte[100], Record.NEVER));
      }
      CompletableFuture<Void> checkpoint = CompletableFuture.runAsync(() -> database.checkpoint(dir.resolve("copy")));
      boolean seenWriting = false;
      while (!seenWriting && !checkpoint.isDone()) {
        seenWriting = database.writing();
      }
      checkpoint.get(30, TimeUnit.SECONDS);
      assertTrue(seenWriting, "a loop write would have joined RocksDB's queue behind the checkpoint's flush");
      assertEquals(List.of(2L), store.tryApplyAll(List.of(bytes("fresh")), List.of(Record.tombstone(2))).stream()
          .map(Record::version).toList(), "once the checkpoint ended, the loop writes");
    }
  }

  @Test
  void aBusyTurnWritesOneSmallGroupOnTheLoopAndHandsTheRestToAWorker() throws Exception {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      CountingExecutor workers = new CountingExecutor();
      List<String> tries = new ArrayList<>();
      GroupedStorage grouped = new GroupedStorage(vertx, store, workers, 2, new LoopWrites(true, triesInto(tries)));
      int writes = LoopWrites.MAX_GROUP_WRITES * 2 + 3;

      CompletableFuture<List<Future<Record>>> asked = new CompletableFuture<>();
      vertx.runOnContext(ignored -> {
        List<Future<Record>> answers = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
          answers.add(grouped.apply(keyOf(i), Record.live(i + 1, bytes("v"), Record.NEVER)));
        }
        asked.complete(answers);
      });
      List<Future<Record>> answers = asked.get(10, TimeUnit.SECONDS);
      for (int i = 0; i < writes; i++) {
        assertEquals(i + 1, answers.get(i).await(10, TimeUnit.SECONDS).version());
        assertEquals(i + 1, store.get(keyOf(i)).version());
      }
      assertEquals(List.of(LoopWrites.MAX_GROUP_WRITES + " applied"), tries);
      assertEquals(1, workers.submitted.get(), "one worker's group took the rest of the turn");
    }
  }

  @Test
  void theEventLoopAppliesWhatNeedsNoWaitAndAWorkerTheRest() throws Exception {
    try (RocksDatabase database = withRecordsOnlyInFiles(dir)) {
      RocksStore store = new RocksStore(database);
      CountingExecutor workers = new CountingExecutor();
      List<String> tries = new ArrayList<>();
      GroupedStorage grouped = new GroupedStorage(vertx, store, workers, 2, new LoopWrites(true, triesInto(tries)));

      assertEquals(7, applyOnLoop(grouped, bytes("never written"), Record.live(7, bytes("v"), Record.NEVER)).version());
      assertEquals(0, workers.submitted.get(), "a new key was written on the loop");
      assertEquals(6, applyOnLoop(grouped, keyOf(5), Record.live(1, bytes("older"), Record.NEVER)).version());
      assertEquals(1, workers.submitted.get(), "a key only the files hold went to a worker");
      assertEquals(List.of("1 applied", "1 handed off"), tries);
    }
  }

  @Test
  void aWriteThatFailsOnTheLoopIsAppliedAndAnsweredByAWorker() throws Exception {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore rocks = new RocksStore(database);
      Store failingOnTheLoop = new DelegatingStore(rocks) {
        @Override
        public List<Record> tryApplyAll(List<byte[]> keys, List<Record> records) {
          rocks.tryApplyAll(keys, records);
          throw new IllegalStateException("failed after writing");
        }
      };
      CountingExecutor workers = new CountingExecutor();
      GroupedStorage grouped = new GroupedStorage(vertx, failingOnTheLoop, workers, 2,
          new LoopWrites(true, new UntimedObserver()));

      assertEquals(4, applyOnLoop(grouped, bytes("k"), Record.live(4, bytes("v"), Record.NEVER)).version());
      assertEquals(1, workers.submitted.get(), "the worker answered what the loop could not");
      assertArrayEquals(bytes("v"), rocks.get(bytes("k")).value());
    }
  }

  private Record applyOnLoop(GroupedStorage grouped, byte[] key, Record record) throws Exception {
    CompletableFuture<Future<Record>> asked = new CompletableFuture<>();
    vertx.runOnContext(ignored -> asked.complete(grouped.apply(key, record)));
    return asked.get(10, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /** An observer that adds each loop try to {@code tries}: "3 applied", "1 handed off". */
  private static StorageObserver triesInto(List<String> tries) {
    return new UntimedObserver() {
      @Override
      public void loopWrite(int writes, long nanos, boolean applied) {
        tries.add(writes + (applied ? " applied" : " handed off"));
      }
    };
  }

  private static class UntimedObserver implements StorageObserver {
    @Override
    public <T> Future<T> timeStorage(String operation, Future<T> pending) {
      return pending;
    }
  }

  private static final class CountingExecutor implements StorageExecutor {
    final AtomicInteger submitted = new AtomicInteger();

    @Override
    public <T> Future<T> submit(Callable<T> task) {
      submitted.incrementAndGet();
      try {
        return Future.succeededFuture(task.call());
      } catch (Exception e) {
        return Future.failedFuture(e);
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
