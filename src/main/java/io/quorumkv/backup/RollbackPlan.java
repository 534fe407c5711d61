package io.quorumkv.backup;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;

import java.util.Arrays;
import java.util.Iterator;

/**
 * What a rollback writes, key by key, from the backup's records and the cluster's live keys of the
 * range (both in key order): the backup's live records again (to be written at fresh versions), and a
 * tombstone for each key live in the cluster that the backup holds deleted, expired, or not at all.
 * Keys that are absent on both sides need nothing.
 */
final class RollbackPlan implements Iterator<RangeEntry> {
  /** A tombstone for every node: the plan does not know how many replicas the cluster's record has. */
  private static final Record DELETE = Record.tombstone(0);

  private final BackupMerge backup;
  private final Iterator<byte[]> clusterKeys;
  private final long nowMillis;
  private RangeEntry backupHead;
  private byte[] clusterHead;
  private RangeEntry next;

  RollbackPlan(BackupMerge backup, Iterator<byte[]> clusterKeys, long nowMillis) {
    this.backup = backup;
    this.clusterKeys = clusterKeys;
    this.nowMillis = nowMillis;
    this.backupHead = backup.hasNext() ? backup.next() : null;
    this.clusterHead = clusterKeys.hasNext() ? clusterKeys.next() : null;
  }

  @Override
  public boolean hasNext() {
    while (next == null && (backupHead != null || clusterHead != null)) {
      next = step();
    }
    return next != null;
  }

  @Override
  public RangeEntry next() {
    if (!hasNext()) {
      throw new java.util.NoSuchElementException();
    }
    RangeEntry taken = next;
    next = null;
    return taken;
  }

  /** Takes the smaller key of the two sides (both when equal); what to write for it, or null for nothing. */
  private RangeEntry step() {
    int order = backupHead == null ? 1 : clusterHead == null ? -1
        : Arrays.compareUnsigned(backupHead.key(), clusterHead);
    RangeEntry fromBackup = order <= 0 ? backupHead : null;
    boolean liveInCluster = order >= 0;
    byte[] key = order <= 0 ? backupHead.key() : clusterHead;
    if (order <= 0) {
      backupHead = backup.hasNext() ? backup.next() : null;
    }
    if (order >= 0) {
      clusterHead = clusterKeys.hasNext() ? clusterKeys.next() : null;
    }
    if (fromBackup != null && fromBackup.record().isLive(nowMillis)) {
      return fromBackup;
    }
    return liveInCluster ? new RangeEntry(key, DELETE) : null;
  }
}
