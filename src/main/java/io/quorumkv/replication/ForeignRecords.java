package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.StorageService;
import io.quorumkv.versioning.ClockException;
import io.quorumkv.versioning.HybridLogicalClock;
import io.vertx.core.Future;

/** Records that another node made, taken into this node's store: a coordinator's write, an anti-entropy copy. */
public final class ForeignRecords {
  private ForeignRecords() {
  }

  /**
   * Applies the record unless its version is too far ahead of this node's clock (then fails with
   * the {@link ClockException}); the clock observes the version first, so it never issues a lower one.
   */
  public static Future<Record> apply(HybridLogicalClock clock, StorageService storage, byte[] key, Record record) {
    try {
      clock.observe(record.version());
    } catch (ClockException e) {
      return Future.failedFuture(e);
    }
    return storage.apply(key, record);
  }
}
