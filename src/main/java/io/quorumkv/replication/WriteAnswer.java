package io.quorumkv.replication;

import io.quorumkv.storage.Record;

/**
 * A replica's answer to a write: stored, or superseded, when the replica already holds a record
 * that wins over the write; {@code keptVersion} is then that record's version, which the
 * coordinator must write above for its write to be the freshest.
 */
public record WriteAnswer(boolean stored, long keptVersion) {
  public static final WriteAnswer STORED = new WriteAnswer(true, 0);

  public static WriteAnswer superseded(long keptVersion) {
    return new WriteAnswer(false, keptVersion);
  }

  /** The answer for {@code written}, given the record the replica keeps after applying it. */
  public static WriteAnswer of(Record written, Record kept) {
    return kept.supersedes(written) ? superseded(kept.version()) : STORED;
  }
}
