package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The record index lists every record once, by (segment, key), and a segment's records exactly,
 * whether their entries sit in files or in the memtable (hashed by segment) or both.
 */
class RecordIndexTest {
  private static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

  @TempDir
  Path dir;

  @Test
  void theIndexListsEachRecordOnceInSegmentOrderFromFilesAndMemtableAlike() {
    Map<String, Record> written = new TreeMap<>();
    Random random = new Random(7);
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      write(new RocksStore(database), written, random, 0, 3_000);
    } // closing flushes: these entries are now in files
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      write(store, written, random, 3_000, 6_000);
      write(store, written, random, 0, 500); // newer versions in the memtable of keys whose entries are in files
      RecordIndex index = new RecordIndex(database);

      List<String> expected = expectedOrder(written.keySet());
      List<IndexEntry> all = new ArrayList<>();
      index.forEach(all::add);
      assertEquals(expected, all.stream().map(RecordIndexTest::keyOf).toList(), "every entry once, in index order");
      for (IndexEntry entry : all) {
        Record record = written.get(keyOf(entry));
        assertEquals(RecordDigest.leafOf(entry.key(), record), entry.leaf(), "the leaf of " + keyOf(entry));
      }

      Map<Integer, List<String>> bySegment = expected.stream().collect(Collectors.groupingBy(
          key -> RecordDigest.segmentOf(bytes(key)), TreeMap::new, Collectors.toList()));
      List<Integer> crowded = bySegment.entrySet().stream().filter(segment -> segment.getValue().size() >= 2)
          .map(Map.Entry::getKey).limit(5).toList();
      assertTrue(crowded.size() >= 2, "segments holding two keys or more: " + crowded);
      int empty = 0;
      while (bySegment.containsKey(empty)) {
        empty++;
      }
      int[] asked = {crowded.get(1), empty, crowded.get(0), bySegment.keySet().iterator().next()};
      List<String> expectedOfSegments = new ArrayList<>();
      for (int segment : asked) {
        expectedOfSegments.addAll(bySegment.getOrDefault(segment, List.of()));
      }
      assertEquals(expectedOfSegments, index.entriesOf(asked).stream().map(RecordIndexTest::keyOf).toList(),
          "the entries of segments " + Arrays.toString(asked) + ", in the order asked, keys ascending in each");
    }
  }

  private static void write(RocksStore store, Map<String, Record> written, Random random, int from, int to) {
    for (int i = from; i < to; i++) {
      String key = "key-" + i;
      Record record = Record.live(1 + random.nextInt(1_000_000) + (long) from * 1_000_000,
          bytes("v" + random.nextInt()), Record.NEVER, 3);
      written.put(key, store.apply(bytes(key), record));
    }
  }

  /** The keys as the index orders them: by segment, then by key. */
  private static List<String> expectedOrder(java.util.Collection<String> keys) {
    return keys.stream().sorted(Comparator.<String>comparingInt(key -> RecordDigest.segmentOf(bytes(key)))
        .thenComparing(RecordIndexTest::bytes, UNSIGNED)).toList();
  }

  private static String keyOf(IndexEntry entry) {
    return new String(entry.key(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
