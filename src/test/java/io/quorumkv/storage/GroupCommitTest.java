package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The grouped calls of {@link RocksStore}: the same answers as one call after the other. */
class GroupCommitTest {
  @TempDir
  Path dir;

  @Test
  void aGroupKeepsTheHighestVersionOfEachKeyWhateverTheOrder() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.apply(bytes("a"), live(5, "stored"));
      List<Record> incoming = List.of(live(4, "older than stored"), live(7, "b7"), live(9, "b9"), live(6, "a6"),
          live(8, "b8"));
      List<Record> kept = store.applyAll(List.of(bytes("a"), bytes("b"), bytes("b"), bytes("a"), bytes("b")), incoming);

      List<Long> keptVersions = kept.stream().map(Record::version).toList();
      assertEquals(List.of(5L, 7L, 9L, 6L, 9L), keptVersions, "each write answers with the record its key keeps");
      for (int stored : new int[] {1, 2, 3}) {
        assertSame(incoming.get(stored), kept.get(stored), "write " + stored + " was stored");
      }
      assertArrayEquals(bytes("a6"), store.get(bytes("a")).value());
      assertArrayEquals(bytes("b9"), store.get(bytes("b")).value());
    }
  }

  @Test
  void aGroupOfReadsAnswersInOrderWithNullForMissingKeys() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.applyAll(List.of(bytes("x"), bytes("z")), List.of(live(1, "x1"), Record.tombstone(2)));
      List<Record> read = store.getAll(List.of(bytes("z"), bytes("y"), bytes("x")));

      assertEquals(3, read.size());
      assertEquals(2, read.get(0).version());
      assertEquals(true, read.get(0).tombstone());
      assertNull(read.get(1));
      assertArrayEquals(bytes("x1"), read.get(2).value());
    }
  }

  @Test
  void aGroupWrittenIsKeptAcrossAReopen() {
    List<byte[]> keys = new ArrayList<>();
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      keys.add(bytes("k" + i));
      records.add(live(i + 1, "v" + i));
    }
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      store.applyAll(keys, records);
    }
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      List<Record> read = store.getAll(keys);
      for (int i = 0; i < 100; i++) {
        assertArrayEquals(bytes("v" + i), read.get(i).value(), "key " + i);
      }
      assertEquals(100, Arrays.stream(read.toArray()).filter(r -> r != null).count());
    }
  }

  private static Record live(long version, String value) {
    return Record.live(version, bytes(value), Record.NEVER);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
