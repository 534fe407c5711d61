package io.quorumkv.backup;

import io.quorumkv.range.MergeInput;
import io.quorumkv.range.RangeMerge;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.RecordsSnapshot;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The records of several node backups as one sequence in key order: each key once, with the
 * record that wins among the backups' copies and the widest replica count among them (the
 * replicas' own rule, {@link Record#merge}), by the merge a cluster-wide range uses ({@link RangeMerge#freshest}).
 */
final class BackupMerge implements Iterator<RangeEntry> {
  private final List<CursorInput> inputs;
  /** The next merged entry, read ahead for {@link #hasNext}; null when not read yet or at the end. */
  private RangeEntry ahead;
  /** Read by the progress line's thread. */
  private volatile long copiesRead;

  BackupMerge(List<RecordsSnapshot.Cursor> cursors) {
    this.inputs = cursors.stream().map(CursorInput::new).toList();
  }

  @Override
  public boolean hasNext() {
    if (ahead == null) {
      ahead = RangeMerge.freshest(inputs);
    }
    return ahead != null;
  }

  /** The next key with its merged record. */
  @Override
  public RangeEntry next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    RangeEntry next = ahead;
    ahead = null;
    return next;
  }

  /** Records read from every backup so far, each copy counted. */
  long copiesRead() {
    return copiesRead;
  }

  /** A backup's cursor as a merge input: its next record always at hand, as it is read from disk. */
  private final class CursorInput implements MergeInput {
    private final RecordsSnapshot.Cursor cursor;
    private RangeEntry head;

    CursorInput(RecordsSnapshot.Cursor cursor) {
      this.cursor = cursor;
    }

    @Override
    public RangeEntry peek() {
      if (head == null && cursor.hasNext()) {
        head = cursor.next();
        copiesRead = copiesRead + 1; // one thread writes it
      }
      return head;
    }

    @Override
    public RangeEntry poll() {
      RangeEntry taken = peek();
      head = null;
      return taken;
    }

    @Override
    public boolean exhausted() {
      return peek() == null;
    }
  }
}
