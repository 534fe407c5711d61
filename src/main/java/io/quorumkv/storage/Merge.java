package io.quorumkv.storage;

/**
 * What a write keeps for one key, by {@link Record#merge} of the stored and incoming records, and
 * what it must write: nothing when the stored record stays as it is.
 *
 * @param kept    the record the key keeps
 * @param changed whether anything is written
 * @param before  the leaf of the stored record it replaces, null when none or nothing changes
 * @param encoded the bytes to store when they are at hand already, else null (encode {@code kept})
 */
record Merge(Record kept, boolean changed, RecordLeaf before, byte[] encoded) {

  /** Merged with a decoded record, or with none ({@code current} null). */
  static Merge of(byte[] key, Record current, Record incoming) {
    Record kept = Record.merge(current, incoming);
    boolean changed = kept != current;
    return new Merge(kept, changed, changed && current != null ? RecordLeaf.of(key, current) : null, null);
  }

  /**
   * Merged with a stored record read in place: its value is copied out only when it wins over
   * the incoming one (a stale write), the one case where the key keeps it as a record.
   */
  static Merge of(byte[] key, EncodedRecord stored, Record incoming) {
    int order = stored.compareTo(incoming);
    if (order > 0) {
      return of(key, stored.decode(), incoming);
    }
    if (order < 0) {
      Record kept = stored.replicas() > incoming.replicas() ? incoming.withReplicas(stored.replicas()) : incoming;
      return new Merge(kept, true, stored.leaf(key), null);
    }
    // The same record again (a hint, a read repair or a retry that crossed the first write).
    if (incoming.replicas() > stored.replicas()) {
      return new Merge(incoming, true, stored.leaf(key), stored.withReplicas(incoming.replicas()));
    }
    return new Merge(incoming.withReplicas(stored.replicas()), false, null, null);
  }
}
