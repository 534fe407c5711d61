package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RocksStore} keeps the winning record with the larger replica count, whatever order copies arrive in. */
class ReplicaCountMergeTest {
  private static final byte[] KEY = bytes("key");
  private static final Record OLDER_WIDE = Record.live(1, bytes("older"), Record.NEVER, 3);
  private static final Record NEWER_NARROW = Record.live(2, bytes("newer"), Record.NEVER, 1);

  @TempDir
  Path dir;

  @Test
  void aWinningWriteTakesTheLargerCountOfTheRecordItReplaces() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(KEY, OLDER_WIDE);
      Record kept = store.apply(KEY, NEWER_NARROW);

      assertFalse(kept.supersedes(NEWER_NARROW), "the write counts as stored");
      assertNewerWithCount3(kept);
      assertNewerWithCount3(store.get(KEY));
    }
  }

  @Test
  void aLosingWriteWithALargerCountWidensTheStoredRecord() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(KEY, NEWER_NARROW);
      Record kept = store.apply(KEY, OLDER_WIDE);

      assertTrue(kept.supersedes(OLDER_WIDE), "the write is refused: the stored record wins");
      assertNewerWithCount3(kept);
      assertNewerWithCount3(store.get(KEY));
    }
  }

  @Test
  void theWidenedRecordIsDurable() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(KEY, NEWER_NARROW);
      store.apply(KEY, OLDER_WIDE);
    }
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      assertNewerWithCount3(new RocksStore(database).get(KEY));
    }
  }

  @Test
  void aGroupMergesCountsInBothOrders() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      byte[] other = bytes("other");
      List<Record> kept = store.applyAll(List.of(KEY, KEY, other, other),
          List.of(OLDER_WIDE, NEWER_NARROW, NEWER_NARROW, OLDER_WIDE));

      assertNewerWithCount3(kept.get(1));
      assertNewerWithCount3(kept.get(3));
      assertNewerWithCount3(store.get(KEY));
      assertNewerWithCount3(store.get(other));
    }
  }

  @Test
  void aNarrowerCopyOfTheStoredRecordChangesNothing() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(KEY, NEWER_NARROW.withReplicas(3));
      Record kept = store.apply(KEY, NEWER_NARROW);

      assertFalse(kept.supersedes(NEWER_NARROW), "the same record counts as stored");
      assertNewerWithCount3(kept);
      assertNewerWithCount3(store.get(KEY));
    }
  }

  private static void assertNewerWithCount3(Record record) {
    assertEquals(2, record.version());
    assertArrayEquals(bytes("newer"), record.value());
    assertEquals(3, record.replicas());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
