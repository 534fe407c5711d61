package io.quorumkv.storage;

/** One record of a range scan, as stored: a live one, or (in a scan of every record) a tombstone or an expired one. */
public record RangeEntry(byte[] key, Record record) {

  /** The record's value bytes (empty for a tombstone). */
  public byte[] value() {
    return record.value();
  }
}
