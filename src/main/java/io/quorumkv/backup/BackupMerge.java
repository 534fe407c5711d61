package io.quorumkv.backup;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.RecordsSnapshot;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The records of several node backups as one sequence in key order: each key once, with the
 * record that wins among the backups' copies (the replicas' rule, {@code Record.supersedes}).
 */
final class BackupMerge {
  private record Head(RangeEntry entry, RecordsSnapshot.Cursor cursor) {
  }

  private final PriorityQueue<Head> heads =
      new PriorityQueue<>(Comparator.comparing((Head head) -> head.entry().key(), Arrays::compareUnsigned));
  private long copiesRead;

  BackupMerge(List<RecordsSnapshot.Cursor> cursors) {
    cursors.forEach(this::advance);
  }

  boolean hasNext() {
    return !heads.isEmpty();
  }

  /** The next key's winning record. */
  RangeEntry next() {
    Head first = heads.poll();
    RangeEntry winner = first.entry();
    advance(first.cursor());
    while (!heads.isEmpty() && Arrays.equals(heads.peek().entry().key(), winner.key())) {
      Head copy = heads.poll();
      if (copy.entry().record().supersedes(winner.record())) {
        winner = copy.entry();
      }
      advance(copy.cursor());
    }
    return winner;
  }

  /** Records read from every backup so far, each copy counted. */
  long copiesRead() {
    return copiesRead;
  }

  private void advance(RecordsSnapshot.Cursor cursor) {
    if (cursor.hasNext()) {
      copiesRead++;
      heads.add(new Head(cursor.next(), cursor));
    }
  }
}
