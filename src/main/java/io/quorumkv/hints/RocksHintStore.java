package io.quorumkv.hints;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RocksDatabase;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The {@link HintStore} on the hints column family of the node's {@link RocksDatabase}, laid out by {@link HintCodec}. */
public final class RocksHintStore implements HintStore {
  private final RocksDatabase database;
  private final ColumnFamilyHandle hints;

  public RocksHintStore(RocksDatabase database) {
    this.database = database;
    this.hints = database.family(RocksDatabase.Family.HINTS);
  }

  @Override
  public void put(Hint hint) {
    database.call("store a hint", db -> {
      database.put(db, hints, HintCodec.key(hint.target(), hint.sequence()), HintCodec.value(hint));
      return null;
    });
  }

  @Override
  public List<Hint> oldest(NodeUrl target, long afterSequence, int limit) {
    byte[] prefix = HintCodec.prefix(target);
    // Seeking past the last delivered hint skips the tombstones its deletes left behind.
    byte[] from = afterSequence < 0 ? prefix : HintCodec.key(target, afterSequence + 1);
    return database.call("read hints", db -> {
      List<Hint> found = new ArrayList<>();
      try (RocksIterator iterator = db.newIterator(hints)) {
        for (iterator.seek(from); iterator.isValid() && found.size() < limit && startsWith(iterator.key(), prefix);
             iterator.next()) {
          found.add(HintCodec.decode(iterator.key(), iterator.value()));
        }
        iterator.status();
      }
      return found;
    });
  }

  /**
   * Deletes exactly the hints it counts, one by one in a write batch: a range delete would also take
   * hints stored after the count began (their sequences, issued earlier, can be below the bound),
   * leaving them counted as pending forever.
   */
  @Override
  public long dropBefore(NodeUrl target, long sequence) {
    byte[] prefix = HintCodec.prefix(target);
    byte[] end = HintCodec.key(target, sequence);
    return database.call("drop old hints", db -> {
      long count = 0;
      try (RocksIterator iterator = db.newIterator(hints); WriteBatch batch = new WriteBatch()) {
        for (iterator.seek(prefix); iterator.isValid() && Arrays.compareUnsigned(iterator.key(), end) < 0; iterator.next()) {
          batch.delete(hints, iterator.key());
          count++;
        }
        iterator.status();
        if (count > 0) {
          database.write(db, batch);
        }
      }
      return count;
    });
  }

  @Override
  public void delete(NodeUrl target, long sequence) {
    database.call("delete a hint", db -> {
      database.delete(db, hints, HintCodec.key(target, sequence));
      return null;
    });
  }

  @Override
  public Map<NodeUrl, Long> countByTarget() {
    return database.call("count hints", db -> {
      Map<NodeUrl, Long> counts = new HashMap<>();
      try (RocksIterator iterator = db.newIterator(hints)) {
        for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
          counts.merge(HintCodec.targetOf(iterator.key()), 1L, Long::sum);
        }
        iterator.status();
      }
      return counts;
    });
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
