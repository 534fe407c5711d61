package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.vertx.core.Future;

/** One copy holder of a key, as the coordinator sees it. */
public interface Replica {

  /** The replica's record for the key, tombstones and expired records included; null if it has none. */
  Future<Record> read(byte[] key);

  /** {@link #read}, a large value left out ({@link LeftOutValues#digestOf}): for a read that only compares this copy. */
  default Future<Record> readDigest(byte[] key) {
    return read(key).map(LeftOutValues::digestOf);
  }

  /** Stores the record unless the replica holds one that supersedes it, and says which happened. */
  Future<WriteAnswer> write(byte[] key, Record record);
}
