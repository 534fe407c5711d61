package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Writes of keys {@link RocksStore}'s filter of stored keys has never seen skip the read before
 * the write; every other write still reads, so last-write-wins holds either way.
 */
class NewKeyWriteTest {
  private static final long FILTER_KEYS = 10_000;

  @TempDir
  Path dir;

  @Test
  void aNewKeyIsWrittenWithoutAReadAndAKnownOneIsReadFirst() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = learnedStore(database);
      store.apply(bytes("k"), live(5, "five"));
      assertEquals(List.of(0L, 1L), readAndNew(store), "a key never stored is written without a read");

      Record kept = store.apply(bytes("k"), live(3, "three"));

      assertEquals(5, kept.version(), "the older write is refused");
      assertArrayEquals(bytes("five"), store.get(bytes("k")).value());
      assertEquals(List.of(1L, 1L), readAndNew(store), "a key written since the filter learned is read first");
    }
  }

  @Test
  void keysStoredBeforeTheStoreOpenedAreLearnedFromTheIndex() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      new RocksStore(database).applyAll(List.of(bytes("a"), bytes("b")), List.of(live(5, "a5"), live(5, "b5")));
    }
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database, InstantSource.system(), FILTER_KEYS);
      assertEquals(2, store.scanIndex(new RecordIndex(database), entry -> { }));

      List<Record> kept = store.applyAll(List.of(bytes("a"), bytes("b"), bytes("c")),
          List.of(live(3, "a3"), live(4, "b4"), live(1, "c1")));

      assertEquals(List.of(5L, 5L, 1L), kept.stream().map(Record::version).toList(),
          "the keys stored before were read, and their older writes refused");
      assertArrayEquals(bytes("a5"), store.get(bytes("a")).value());
      assertArrayEquals(bytes("b5"), store.get(bytes("b")).value());
      assertEquals(List.of(2L, 1L), readAndNew(store));
    }
  }

  @Test
  void everyScanFeedsTheWholeIndexAndOnlyTheFirstLearnsTheKeys() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      new RocksStore(database).applyAll(List.of(bytes("a"), bytes("b")), List.of(live(5, "a5"), live(5, "b5")));
      RocksStore store = new RocksStore(database, InstantSource.system(), FILTER_KEYS);
      RecordIndex index = new RecordIndex(database);
      List<String> first = new ArrayList<>();
      List<String> second = new ArrayList<>();

      assertEquals(2, store.scanIndex(index, entry -> first.add(new String(entry.key(), StandardCharsets.UTF_8))));
      long learnedAgain = store.scanIndex(index,
          entry -> second.add(new String(entry.key(), StandardCharsets.UTF_8)));
      assertEquals(0, learnedAgain, "the keys are learned once");

      assertEquals(List.of("a", "b"), first.stream().sorted().toList());
      assertEquals(first, second);
      store.apply(bytes("a"), live(3, "a3"));
      store.apply(bytes("c"), live(1, "c1"));
      assertEquals(List.of(1L, 1L), readAndNew(store), "the learned key was read first, the new one was not");
    }
  }

  @Test
  void untilTheStoredKeysAreLearnedEveryWriteReadsFirst() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      assertANewKeyIsReadFirst(new RocksStore(database, InstantSource.system(), FILTER_KEYS));
    }
  }

  @Test
  void aStoreWithoutAFilterReadsBeforeEveryWrite() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      learnedStore(database).apply(bytes("stored"), live(1, "stored"));
      RocksStore store = new RocksStore(database, InstantSource.system(), 0);
      assertEquals(0, store.scanIndex(new RecordIndex(database), entry -> { }),
          "a store without a filter learns no key");
      assertANewKeyIsReadFirst(store);
    }
  }

  @Test
  void aNewKeyWrittenTwiceInOneGroupKeepsTheHigherVersion() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = learnedStore(database);
      Record older = live(1, "older");
      Record newer = live(2, "newer");

      List<Record> kept = store.applyAll(List.of(bytes("n"), bytes("n")), List.of(newer, older));

      assertSame(newer, kept.get(0));
      assertSame(newer, kept.get(1), "the older write of the group is refused");
      assertArrayEquals(bytes("newer"), store.get(bytes("n")).value());
    }
  }

  /** The anti-entropy trees are kept from what the listener is told: exactly what was replaced. */
  @Test
  void theListenerIsToldNoRecordWasReplacedForANewKeyAndTheStoredOneForAKnownKey() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = learnedStore(database);
      List<String> changes = new ArrayList<>();
      RecordLeaf one = RecordLeaf.of(bytes("k"), live(1, "one"));
      RecordLeaf two = RecordLeaf.of(bytes("k"), live(2, "two"));
      store.onChange((key, before, after) -> changes.add(new String(key, StandardCharsets.UTF_8) + ": "
          + (before == null ? "none" : before.equals(one) ? "one" : before) + " -> "
          + (after.equals(one) ? "one" : after.equals(two) ? "two" : after)));

      store.apply(bytes("k"), live(1, "one"));
      store.apply(bytes("k"), live(2, "two"));
      store.apply(bytes("k"), live(2, "two"));

      assertEquals(List.of("k: none -> one", "k: one -> two"), changes, "the same record again changes nothing");
    }
  }

  @Test
  void everyKeyOfAFullerStoreIsLearnedAndReadBeforeItIsWritten() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore plain = new RocksStore(database);
      List<byte[]> stored = new ArrayList<>();
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        stored.add(bytes("stored-" + i));
        records.add(live(1, "v"));
      }
      plain.applyAll(stored, records);
      RocksStore store = learnedStore(database);

      for (byte[] key : stored) {
        assertEquals(1, store.apply(key, live(0, "older")).version(), new String(key, StandardCharsets.UTF_8));
      }
      assertEquals(List.of((long) stored.size(), 0L), readAndNew(store), "every stored key was read first");
      assertArrayEquals(bytes("v"), store.get(stored.get(0)).value());
      assertNull(store.get(bytes("never-stored")));
    }
  }

  private static RocksStore learnedStore(RocksDatabase database) {
    RocksStore store = new RocksStore(database, InstantSource.system(), FILTER_KEYS);
    store.scanIndex(new RecordIndex(database), entry -> { });
    return store;
  }

  private static void assertANewKeyIsReadFirst(RocksStore store) {
    store.apply(bytes("n"), live(1, "n1"));
    assertEquals(List.of(1L, 0L), readAndNew(store));
    assertEquals(0L, store.writeStats().get("new-key-filter-learned"));
  }

  /** Keys read before writing them, then keys written without a read. */
  private static List<Long> readAndNew(RocksStore store) {
    return List.of(store.writeStats().get("keys-read-before-writing"), store.writeStats().get("new-keys-written"));
  }

  private static Record live(long version, String value) {
    return Record.live(version, bytes(value), Record.NEVER);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
