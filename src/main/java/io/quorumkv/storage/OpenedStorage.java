package io.quorumkv.storage;

import io.quorumkv.config.ConfigException;
import io.quorumkv.config.NodeConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * RocksDB and the stores on it, opened together and closed together: the records ({@code store}
 * is {@code records} behind whatever layer the caller wraps it in), their index and the node's
 * meta data. Every method blocks: storage workers only.
 */
public record OpenedStorage(RocksDatabase database, RocksStore records, Store store, RocksMetaStore meta,
                            RecordIndex index) {
  private static final System.Logger LOG = System.getLogger(OpenedStorage.class.getName());

  /**
   * Opens RocksDB in the conf's data directory (created if missing), indexing the records an
   * older version stored without an index.
   *
   * @param storeLayer wraps the RocksDB record store, for layers such as test faults
   */
  public static OpenedStorage open(NodeConfig config, UnaryOperator<Store> storeLayer, InstantSource wallClock) {
    RocksDatabase database = RocksDatabase.open(dataDirOf(config), config.storage());
    try {
      RocksMetaStore meta = new RocksMetaStore(database);
      RecordIndex index = new RecordIndex(database);
      long indexed = index.buildIfMissing(meta, wallClock);
      if (indexed > 0) {
        LOG.log(System.Logger.Level.INFO, "indexed " + indexed + " records stored before the record index existed");
      }
      RocksStore records = new RocksStore(database, wallClock, config.storage().newKeyFilterKeys());
      return new OpenedStorage(database, records, storeLayer.apply(records), meta, index);
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  /** RocksDB's statistics and the record store's write counters. */
  public Map<String, Long> engineStats() {
    Map<String, Long> stats = new HashMap<>(database.engineStats());
    stats.putAll(records.writeStats());
    return stats;
  }

  public void close() {
    try {
      store.close();
    } finally {
      database.close();
    }
  }

  private static Path dataDirOf(NodeConfig config) {
    Path dir = config.dataDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ConfigException("dataDir " + dir + " cannot be created: " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : " " + e.getMessage()));
    }
    if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new ConfigException("dataDir " + dir + " is not a writable directory");
    }
    return dir;
  }
}
