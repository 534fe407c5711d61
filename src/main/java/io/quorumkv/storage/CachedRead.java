package io.quorumkv.storage;

/**
 * What a read from memory alone found ({@link Store#getCached}): the record, none, or that memory
 * could not tell ({@link #UNKNOWN}) and the read needs a storage worker.
 */
public record CachedRead(boolean known, Record record) {
  public static final CachedRead UNKNOWN = new CachedRead(false, null);
  public static final CachedRead ABSENT = new CachedRead(true, null);

  public static CachedRead of(Record record) {
    return record == null ? ABSENT : new CachedRead(true, record);
  }
}
