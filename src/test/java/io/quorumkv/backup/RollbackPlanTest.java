package io.quorumkv.backup;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordsSnapshot;
import io.quorumkv.storage.RocksDatabase;
import io.quorumkv.storage.RocksStore;
import io.quorumkv.config.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a rollback writes, from two real backups (RocksDB checkpoints) merged and the cluster's
 * live keys: the backup's live records, and a tombstone for every key live now that the backup
 * holds deleted, expired or not at all.
 */
class RollbackPlanTest {
  private static final long NOW = 1_000_000;

  @Test
  void theRangeEndsAsTheBackupHadIt(@TempDir Path dir) throws IOException {
    Path first = snapshot(dir.resolve("a"), List.of(
        entry("a", Record.live(5, bytes("a-old"), Record.NEVER, 2)),
        entry("b", Record.live(5, bytes("b"), Record.NEVER, 2)),
        entry("d", Record.tombstone(9, 2)),
        entry("e", Record.live(5, bytes("e-expired"), NOW - 1, 2))));
    Path second = snapshot(dir.resolve("b"), List.of(
        entry("a", Record.live(7, bytes("a-new"), Record.NEVER, 2)),
        entry("d", Record.live(3, bytes("d-before-delete"), Record.NEVER, 2)),
        entry("f", Record.live(5, bytes("f"), Record.NEVER, 2))));
    List<String> planned = new ArrayList<>();
    try (RecordsSnapshot a = RecordsSnapshot.open(first); RecordsSnapshot b = RecordsSnapshot.open(second);
         RecordsSnapshot.Cursor ca = a.cursor(null, null); RecordsSnapshot.Cursor cb = b.cursor(null, null)) {
      Iterator<byte[]> liveNow = List.of(bytes("a"), bytes("c"), bytes("d"), bytes("e"), bytes("g")).iterator();
      RollbackPlan plan = new RollbackPlan(new BackupMerge(List.of(ca, cb)), liveNow, NOW);
      while (plan.hasNext()) {
        RangeEntry next = plan.next();
        planned.add(new String(next.key(), StandardCharsets.UTF_8) + "="
            + (next.record().tombstone() ? "delete" : new String(next.value(), StandardCharsets.UTF_8)));
      }
    }
    assertEquals(List.of("a=a-new", "b=b", "c=delete", "d=delete", "e=delete", "f=f", "g=delete"), planned);
  }

  private static Path snapshot(Path dir, List<RangeEntry> entries) throws IOException {
    Path live = Files.createDirectories(dir.resolve("live"));
    Path checkpoint = dir.resolve("checkpoint");
    try (RocksDatabase database = RocksDatabase.open(live, StorageConfig.defaults());
         RocksStore store = new RocksStore(database, InstantSource.system(), 0)) {
      for (RangeEntry entry : entries) {
        store.apply(entry.key(), entry.record());
      }
      database.checkpoint(checkpoint);
    }
    return checkpoint;
  }

  private static RangeEntry entry(String key, Record record) {
    return new RangeEntry(bytes(key), record);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
