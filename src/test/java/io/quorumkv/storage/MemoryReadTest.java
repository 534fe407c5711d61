package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RocksStore#getCached}: what memory holds is answered, what only the files hold is left to a worker. */
class MemoryReadTest {
  static final int RECORDS = 20_000;

  @TempDir
  Path dir;

  @Test
  void aRecordInTheMemtableAndAKeyNeverWrittenAreAnsweredFromMemory() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(bytes("k"), Record.live(7, bytes("v"), Record.NEVER));
      store.apply(bytes("gone"), Record.tombstone(8));

      CachedRead found = store.getCached(bytes("k"));
      assertTrue(found.known());
      assertEquals(7, found.record().version());
      assertArrayEquals(bytes("v"), found.record().value());
      assertTrue(store.getCached(bytes("gone")).record().tombstone(), "a tombstone is a record too");
      assertSame(CachedRead.ABSENT, store.getCached(bytes("never written")));
    }
  }

  @Test
  void aRecordOnlyTheFilesHoldIsLeftToAWorkerWhichThenFindsIt() {
    try (RocksDatabase database = withRecordsOnlyInFiles(dir)) {
      RocksStore store = new RocksStore(database);
      byte[] key = keyOf(RECORDS / 2);
      assertSame(CachedRead.UNKNOWN, store.getCached(key), "reading it would touch the disk");

      Record read = store.get(key);
      assertArrayEquals(valueOf(RECORDS / 2), read.value());
      CachedRead again = store.getCached(key);
      assertTrue(again.known(), "the worker's read brought its block into the cache");
      assertArrayEquals(valueOf(RECORDS / 2), again.record().value());
    }
  }

  @Test
  void theRowCacheAnswersARecordReadOnceFromTheFiles() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      fill(new RocksStore(database));
    }
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      byte[] key = keyOf(123);
      store.get(key);
      long hits = database.engineStats().get("row-cache-hits");
      assertArrayEquals(valueOf(123), store.getCached(key).record().value());
      assertEquals(hits + 1, database.engineStats().get("row-cache-hits"));
      assertTrue(database.engineStats().get("row-cache-usage-bytes") > 0);
    }
  }

  @Test
  void aClosedStoreAnswersUnknownInsteadOfFailing() {
    RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults());
    RocksStore store = new RocksStore(database);
    store.apply(bytes("k"), Record.live(1, bytes("v"), Record.NEVER));
    store.close();
    assertFalse(store.getCached(bytes("k")).known());
    database.close();
    assertFalse(store.getCached(bytes("k")).known());
    assertNull(CachedRead.UNKNOWN.record());
  }

  /**
   * A database in {@code dir} holding {@link #RECORDS} records in its files only: filled, closed
   * (which flushes the memtables) and opened again with no row cache, so no data block is cached.
   */
  static RocksDatabase withRecordsOnlyInFiles(Path dir) {
    StorageConfig noRowCache = StorageConfig.defaults().withRowCacheBytes(0);
    try (RocksDatabase database = RocksDatabase.open(dir, noRowCache)) {
      fill(new RocksStore(database));
    }
    return RocksDatabase.open(dir, noRowCache);
  }

  /** Writes {@link #RECORDS} records, key i at version i + 1, in batches. */
  static void fill(RocksStore store) {
    List<byte[]> keys = new ArrayList<>();
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      keys.add(keyOf(i));
      records.add(Record.live(i + 1, valueOf(i), Record.NEVER));
      if (keys.size() == 1000) {
        store.applyAll(keys, records);
        keys.clear();
        records.clear();
      }
    }
  }

  static byte[] keyOf(int i) {
    return bytes(String.format("key%08d", i));
  }

  private static byte[] valueOf(int i) {
    return bytes("value of record " + i + " ".repeat(80));
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
