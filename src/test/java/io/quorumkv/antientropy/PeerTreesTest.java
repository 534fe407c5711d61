package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.config.StorageConfig;
import io.quorumkv.storage.MetaStore;
import io.quorumkv.storage.PurgeGate;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordLeaf;
import io.quorumkv.storage.RecordIndex;
import io.quorumkv.storage.RocksDatabase;
import io.quorumkv.storage.RocksMetaStore;
import io.quorumkv.storage.RocksStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trees kept current write by write equal the trees built from the record index, whatever
 * the writes (new keys, overwrites, losing writes, wider counts, tombstones, purges); and two
 * nodes holding the same records have equal trees for each other.
 */
class PeerTreesTest {
  private static final List<NodeUrl> CLUSTER = List.of(node(1), node(2), node(3));

  @TempDir
  Path dir;

  @Test
  void treesKeptCurrentByEveryChangeEqualTreesRebuiltFromTheIndex() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      PeerTrees live = new PeerTrees(node(1), CLUSTER);
      RocksStore store = new RocksStore(database);
      store.onChange(live);
      Random random = new Random(42);
      for (int i = 0; i < 5_000; i++) {
        byte[] key = bytes("key-" + random.nextInt(1_000));
        int replicas = 1 + random.nextInt(3);
        long version = 1 + random.nextInt(10_000);
        store.apply(key, random.nextInt(5) == 0 ? Record.tombstone(version, replicas)
            : Record.live(version, bytes("v" + random.nextInt()), Record.NEVER, replicas));
      }
      store.purge(new byte[0], Integer.MAX_VALUE, Long.MAX_VALUE, 0, PurgeGate.GRACE_ONLY);

      PeerTrees rebuilt = new PeerTrees(node(1), CLUSTER);
      rebuilt.reshape(1, CLUSTER, new RecordIndex(database)::forEach);
      for (NodeUrl peer : List.of(node(2), node(3))) {
        assertNotEquals(0, live.tree(peer).root(), "the tree with " + peer + " holds records");
        assertEquals(rebuilt.tree(peer).root(), live.tree(peer).root());
        assertArrayEquals(rebuilt.tree(peer).branches(), live.tree(peer).branches());
      }
    }
  }

  @Test
  void twoNodesWithTheSameRecordsHaveEqualTreesForEachOtherAndOneRecordMakesThemDiffer() {
    PeerTrees first = new PeerTrees(node(1), CLUSTER);
    PeerTrees second = new PeerTrees(node(2), CLUSTER);
    for (int i = 0; i < 1_000; i++) {
      byte[] key = bytes("key-" + i);
      Record record = Record.live(i + 1, bytes("v" + i), Record.NEVER, 3);
      first.changed(key, null, RecordLeaf.of(key, record));
      second.changed(key, null, RecordLeaf.of(key, record));
    }
    assertEquals(first.tree(node(2)).root(), second.tree(node(1)).root());

    byte[] key = bytes("key-7");
    second.changed(key, RecordLeaf.of(key, Record.live(8, bytes("v7"), Record.NEVER, 3)),
        RecordLeaf.of(key, Record.tombstone(2_000, 3)));
    assertNotEquals(first.tree(node(2)).root(), second.tree(node(1)).root());
    long[] ours = first.tree(node(2)).branches();
    long[] theirs = second.tree(node(1)).branches();
    assertEquals(1, Exchange.differing(ours, theirs, 0).length, "one branch differs");
  }

  @Test
  void aRecordWrittenToOneReplicaIsSharedWithNobody() {
    PeerTrees trees = new PeerTrees(node(1), CLUSTER);
    for (int i = 0; i < 200; i++) {
      byte[] key = bytes("key-" + i);
      List<NodeUrl> sharers = trees.sharers(key, 2);
      assertTrue(sharers.size() <= 1, "a key written to 2 replicas is shared with at most one other node");
      assertEquals(List.of(), trees.sharers(key, 1));
      assertEquals(List.of(node(2), node(3)), trees.sharers(key, 3));
    }
  }

  @Test
  void recordsStoredBeforeTheIndexExistedAreIndexedOnce() {
    try (RocksDatabase database = RocksDatabase.open(dir, StorageConfig.defaults())) {
      RocksStore store = new RocksStore(database);
      for (int i = 0; i < 100; i++) {
        store.apply(bytes("key-" + i), Record.live(i + 1, bytes("v"), Record.NEVER, 3));
      }
      MetaStore meta = new RocksMetaStore(database);
      RecordIndex index = new RecordIndex(database);
      assertEquals(100, index.buildIfMissing(meta, java.time.InstantSource.system()),
          "a store whose index was never marked built is indexed");
      assertEquals(0, index.buildIfMissing(meta, java.time.InstantSource.system()), "and only once");
      int[] entries = {0};
      index.forEach(entry -> entries[0]++);
      assertEquals(100, entries[0]);
    }
  }

  private static NodeUrl node(int i) {
    return new NodeUrl("127.0.0." + i, 8080);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
