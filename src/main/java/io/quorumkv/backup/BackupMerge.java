package io.quorumkv.backup;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordsSnapshot;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * The records of several node backups as one sequence in key order: each key once, with the
 * record that wins among the backups' copies and the widest replica count among them (the
 * replicas' own rule, {@link Record#merge}).
 */
final class BackupMerge implements Iterator<RangeEntry> {
  private record Head(RangeEntry entry, RecordsSnapshot.Cursor cursor) {
  }

  private final PriorityQueue<Head> heads =
      new PriorityQueue<>(Comparator.comparing((Head head) -> head.entry().key(), Arrays::compareUnsigned));
  /** Read by the progress line's thread. */
  private volatile long copiesRead;

  BackupMerge(List<RecordsSnapshot.Cursor> cursors) {
    cursors.forEach(this::advance);
  }

  @Override
  public boolean hasNext() {
    return !heads.isEmpty();
  }

  /** The next key with its merged record. */
  @Override
  public RangeEntry next() {
    if (heads.isEmpty()) {
      throw new NoSuchElementException();
    }
    Head first = heads.poll();
    byte[] key = first.entry().key();
    Record merged = first.entry().record();
    advance(first.cursor());
    while (!heads.isEmpty() && Arrays.equals(heads.peek().entry().key(), key)) {
      Head copy = heads.poll();
      merged = Record.merge(merged, copy.entry().record());
      advance(copy.cursor());
    }
    return new RangeEntry(key, merged);
  }

  /** Records read from every backup so far, each copy counted. */
  long copiesRead() {
    return copiesRead;
  }

  private void advance(RecordsSnapshot.Cursor cursor) {
    if (cursor.hasNext()) {
      copiesRead = copiesRead + 1; // one thread writes it
      heads.add(new Head(cursor.next(), cursor));
    }
  }
}
