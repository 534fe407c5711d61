package io.quorumkv.storage;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The records of a RocksDB directory this node does not run, such as a checkpoint, opened read-only
 * and read in key order. Blocking; one thread at a time.
 */
public final class RecordsSnapshot implements AutoCloseable {
  private final DBOptions options;
  private final RocksDB db;
  private final List<ColumnFamilyHandle> handles;

  private RecordsSnapshot(DBOptions options, RocksDB db, List<ColumnFamilyHandle> handles) {
    this.options = options;
    this.db = db;
    this.handles = handles;
  }

  /** Opens the directory read-only; a {@link StorageException} when it holds no readable database. */
  public static RecordsSnapshot open(Path dir) {
    RocksDB.loadLibrary();
    NativeLibraryCopies.deleteLoaded();
    DBOptions options = new DBOptions();
    List<ColumnFamilyOptions> familyOptions = new ArrayList<>();
    try (Options listing = new Options()) {
      List<ColumnFamilyDescriptor> families = new ArrayList<>();
      for (byte[] name : RocksDB.listColumnFamilies(listing, dir.toString())) {
        ColumnFamilyOptions family = new ColumnFamilyOptions();
        familyOptions.add(family);
        families.add(new ColumnFamilyDescriptor(name, family));
      }
      if (families.isEmpty()) {
        throw new RocksDBException("no column families");
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDB db = RocksDB.openReadOnly(options, dir.toString(), families, handles);
      return new RecordsSnapshot(options, db, handles);
    } catch (RocksDBException e) {
      options.close();
      throw new StorageException("cannot read the records in " + dir + ": " + e.getMessage(), e);
    } finally {
      // Read at open only: the database keeps copies of what it needs.
      familyOptions.forEach(ColumnFamilyOptions::close);
    }
  }

  /** The records in {@code [start, end)} in key order ({@code start} null for the first key, {@code end} for no bound). */
  public Cursor cursor(byte[] start, byte[] end) {
    return new Cursor(start, end);
  }

  /** One pass over the records; every stored record is checked against its checksums as it is read. */
  public final class Cursor implements AutoCloseable {
    private final ReadOptions readOptions;
    private final Slice upperBound;
    private final RocksIterator iterator;

    private Cursor(byte[] start, byte[] end) {
      this.readOptions = new ReadOptions().setVerifyChecksums(true).setFillCache(false);
      this.upperBound = end == null ? null : new Slice(end);
      if (upperBound != null) {
        readOptions.setIterateUpperBound(upperBound);
      }
      this.iterator = db.newIterator(db.getDefaultColumnFamily(), readOptions);
      if (start == null) {
        iterator.seekToFirst();
      } else {
        iterator.seek(start);
      }
    }

    public boolean hasNext() {
      if (iterator.isValid()) {
        return true;
      }
      try {
        iterator.status();
      } catch (RocksDBException e) {
        throw new StorageException("cannot read the snapshot: " + e.getMessage(), e);
      }
      return false;
    }

    /** The next record with its key. */
    public RangeEntry next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      byte[] key = iterator.key();
      Record record;
      try {
        record = RecordCodec.decode(iterator.value());
      } catch (IllegalArgumentException e) {
        throw new StorageException("the snapshot holds a record it cannot read under key "
            + Arrays.toString(Arrays.copyOf(key, Math.min(key.length, 16))) + ": " + e.getMessage(), e);
      }
      iterator.next();
      return new RangeEntry(key, record);
    }

    @Override
    public void close() {
      iterator.close();
      readOptions.close();
      if (upperBound != null) {
        upperBound.close();
      }
    }
  }

  @Override
  public void close() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    options.close();
  }
}
