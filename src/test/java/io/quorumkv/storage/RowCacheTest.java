package io.quorumkv.storage;

import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default row cache holds the records of a store the size of the yardstick's (300,000 of 100
 * bytes), so that reading them again skips the filter, index and data-block lookups. One too small
 * for the records read at random costs more than it saves (docs/performance.md).
 */
class RowCacheTest {
  private static final int RECORDS = 300_000;
  private static final int BATCH = 1_000;

  @TempDir
  Path dir;

  @Test
  void theDefaultRowCacheHoldsThreeHundredThousandRecordsOfAHundredBytes() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      byte[] value = new byte[100];
      Arrays.fill(value, (byte) 'v');
      for (int first = 0; first < RECORDS; first += BATCH) {
        List<Record> records = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
          records.add(Record.live(1, value, Record.NEVER));
        }
        store.applyAll(keys(first), records);
      }
    }
    // Reopened, every record is in a file: what a read finds comes through the row cache.
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      readAll(store);
      long hitsBefore = database.engineStats().get("row-cache-hits");

      readAll(store);

      long hits = database.engineStats().get("row-cache-hits") - hitsBefore;
      assertTrue(hits >= RECORDS, "the second pass found " + hits + " of " + RECORDS + " records in the row cache"
          + " (" + database.engineStats().get("row-cache-usage-bytes") + " bytes used)");
    }
  }

  private static void readAll(RocksStore store) {
    for (int first = 0; first < RECORDS; first += BATCH) {
      List<Record> found = store.getAll(keys(first));
      assertTrue(found.stream().allMatch(record -> record != null && record.value().length == 100));
    }
  }

  private static List<byte[]> keys(int first) {
    List<byte[]> keys = new ArrayList<>(BATCH);
    for (int i = first; i < first + BATCH; i++) {
      keys.add(("k" + i).getBytes(StandardCharsets.UTF_8));
    }
    return keys;
  }
}
