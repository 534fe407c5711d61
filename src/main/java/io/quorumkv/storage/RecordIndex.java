package io.quorumkv.storage;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The index column family: one entry per stored record, ordered by (segment, key), so that
 * anti-entropy lists the records of a few segments without scanning the store. {@link RocksStore}
 * writes each entry in the write batch of its record, so the two never disagree, crashes included.
 * Blocking: storage workers only.
 *
 * <pre>
 * entry key:   segment (unsigned short) | record key
 * entry value: leaf digest (long) | replicas (unsigned short) | stored at (long, wall-clock millis)
 * </pre>
 */
public final class RecordIndex {
  private static final String FORMAT_NAME = "record-index.format";
  private static final long FORMAT = 1;
  private static final int SEGMENT_BYTES = 2;
  private static final int REBUILD_BATCH = 10_000;

  private final RocksDatabase database;
  private final ColumnFamilyHandle index;

  public RecordIndex(RocksDatabase database) {
    this.database = database;
    this.index = database.family(RocksDatabase.Family.INDEX);
  }

  static byte[] keyOf(byte[] key) {
    int segment = RecordDigest.segmentOf(key);
    byte[] indexKey = new byte[SEGMENT_BYTES + key.length];
    indexKey[0] = (byte) (segment >>> 8);
    indexKey[1] = (byte) segment;
    System.arraycopy(key, 0, indexKey, SEGMENT_BYTES, key.length);
    return indexKey;
  }

  static byte[] valueOf(byte[] key, Record record, long storedAt) {
    return valueOf(RecordLeaf.of(key, record), storedAt);
  }

  static byte[] valueOf(RecordLeaf leaf, long storedAt) {
    return ByteBuffer.allocate(Long.BYTES + Short.BYTES + Long.BYTES)
        .putLong(leaf.leaf()).putShort((short) leaf.replicas()).putLong(storedAt).array();
  }

  static IndexEntry decode(byte[] indexKey, byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    int segment = (indexKey[0] & 0xff) << 8 | indexKey[1] & 0xff;
    return new IndexEntry(Arrays.copyOfRange(indexKey, SEGMENT_BYTES, indexKey.length), segment, buffer.getLong(),
        Short.toUnsignedInt(buffer.getShort()), buffer.getLong());
  }

  /** The entries of the given segments, segment by segment in the order given, keys ascending within each. */
  public List<IndexEntry> entriesOf(int[] segments) {
    return database.call("read the record index", db -> {
      List<IndexEntry> entries = new ArrayList<>();
      try (ReadOptions options = new ReadOptions().setFillCache(false);
           RocksIterator iterator = db.newIterator(index, options)) {
        for (int segment : segments) {
          byte[] prefix = {(byte) (segment >>> 8), (byte) segment};
          for (iterator.seek(prefix); iterator.isValid() && startsWith(iterator.key(), prefix); iterator.next()) {
            entries.add(decode(iterator.key(), iterator.value()));
          }
          iterator.status();
        }
      }
      return entries;
    });
  }

  /** Every entry, in index order, to {@code consumer}; for building trees while nothing writes yet. */
  public void forEach(Consumer<IndexEntry> consumer) {
    database.call("scan the record index", db -> {
      try (ReadOptions options = new ReadOptions().setFillCache(false);
           RocksIterator iterator = db.newIterator(index, options)) {
        for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
          consumer.accept(decode(iterator.key(), iterator.value()));
        }
        iterator.status();
      }
      return null;
    });
  }

  /**
   * Indexes every record when the data directory was written before the index existed (its
   * records have no entries yet); a no-op afterwards. Call at open, before anything writes.
   * The records count as stored now, which only delays their purge.
   */
  public long buildIfMissing(MetaStore meta, InstantSource wallClock) {
    if (meta.readLong(FORMAT_NAME, 0) == FORMAT) {
      return 0;
    }
    long indexed = database.call("index the stored records", db -> {
      ColumnFamilyHandle records = database.family(RocksDatabase.Family.RECORDS);
      long count = 0;
      long now = wallClock.millis();
      try (ReadOptions options = new ReadOptions().setFillCache(false);
           RocksIterator iterator = db.newIterator(records, options)) {
        WriteBatch batch = new WriteBatch();
        try {
          for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
            byte[] key = iterator.key();
            batch.put(index, keyOf(key), valueOf(key, RecordCodec.decode(iterator.value()), now));
            if (++count % REBUILD_BATCH == 0) {
              database.write(db, batch);
              batch.close();
              batch = new WriteBatch();
            }
          }
          iterator.status();
          database.write(db, batch);
        } finally {
          batch.close();
        }
      }
      return count;
    });
    meta.writeLong(FORMAT_NAME, FORMAT);
    return indexed;
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
