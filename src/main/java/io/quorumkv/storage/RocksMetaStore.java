package io.quorumkv.storage;

import org.rocksdb.ColumnFamilyHandle;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The {@link MetaStore} on the meta column family of a {@link RocksDatabase}: big-endian longs under UTF-8 names. */
public final class RocksMetaStore implements MetaStore {
  private final RocksDatabase database;
  private final ColumnFamilyHandle meta;

  public RocksMetaStore(RocksDatabase database) {
    this.database = database;
    this.meta = database.family(RocksDatabase.Family.META);
  }

  @Override
  public long readLong(String name, long absent) {
    return database.call("read " + name, db -> {
      byte[] bytes = db.get(meta, keyOf(name));
      return bytes == null ? absent : ByteBuffer.wrap(bytes).getLong();
    });
  }

  @Override
  public void writeLong(String name, long value) {
    database.call("persist " + name, db -> {
      database.put(db, meta, keyOf(name), ByteBuffer.allocate(Long.BYTES).putLong(value).array());
      return null;
    });
  }

  @Override
  public byte[] read(String name) {
    return database.call("read " + name, db -> db.get(meta, keyOf(name)));
  }

  @Override
  public void write(String name, byte[] value) {
    database.call("persist " + name, db -> {
      database.put(db, meta, keyOf(name), value);
      return null;
    });
  }

  private static byte[] keyOf(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }
}
