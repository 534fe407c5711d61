package io.quorumkv.replication;

import io.quorumkv.storage.Record;

/**
 * What a conditional write expects of the key's freshest record, read at the write's quorum:
 * a live record of one version ({@code If-Match: "V"}), any live record ({@code If-Match: *}) or
 * none ({@code If-None-Match: *}). Tombstones and expired records count as none.
 */
public sealed interface Condition {
  /** Whether the freshest record read (null when no replica had one) lets the write go. */
  boolean holds(Record freshest, long nowMillis);

  /**
   * Whether a record this node holds already rules the write out, whatever the quorum would read:
   * true only for a version match when the record is newer than the version expected, as a key's
   * versions only grow.
   */
  default boolean ruledOutBy(Record held) {
    return false;
  }

  static Condition versionIs(long version) {
    return new VersionIs(version);
  }

  static Condition present() {
    return Present.INSTANCE;
  }

  static Condition absent() {
    return Absent.INSTANCE;
  }

  /** The record's version when it is live, else null. */
  static Long liveVersion(Record record, long nowMillis) {
    return record != null && record.isLive(nowMillis) ? record.version() : null;
  }

  record VersionIs(long version) implements Condition {
    @Override
    public boolean holds(Record freshest, long nowMillis) {
      Long live = liveVersion(freshest, nowMillis);
      return live != null && live == version;
    }

    @Override
    public boolean ruledOutBy(Record held) {
      return held != null && held.version() > version;
    }
  }

  enum Present implements Condition {
    INSTANCE;

    @Override
    public boolean holds(Record freshest, long nowMillis) {
      return liveVersion(freshest, nowMillis) != null;
    }
  }

  enum Absent implements Condition {
    INSTANCE;

    @Override
    public boolean holds(Record freshest, long nowMillis) {
      return liveVersion(freshest, nowMillis) == null;
    }
  }
}
