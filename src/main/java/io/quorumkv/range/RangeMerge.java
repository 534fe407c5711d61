package io.quorumkv.range;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;

import java.util.Arrays;
import java.util.List;

/**
 * The k-way merge of a cluster-wide range: each key once, in key order, with the record that wins
 * by {@link Record#merge} among the nodes that hold it. It decides only while every unfinished
 * source has a record buffered, since a source with none might still send a smaller key. The rule
 * itself ({@link #freshest}) is the one merge of the node and its tools: the restore tool merges
 * the backups' cursors with it too.
 */
public final class RangeMerge {
  private final List<RangeSource> sources;

  public RangeMerge(List<RangeSource> sources) {
    this.sources = List.copyOf(sources);
  }

  /** The first source that may still send records but has none buffered; null when the merge can decide. */
  public RangeSource waitingFor() {
    for (RangeSource source : sources) {
      if (source.peek() == null && !source.exhausted()) {
        return source;
      }
    }
    return null;
  }

  /**
   * Takes the smallest key from every source holding it and returns it with its freshest record
   * (which may be a tombstone or expired: the caller decides what to show); null once every source
   * is exhausted. Call only when {@link #waitingFor()} is null.
   */
  public RangeEntry next() {
    return freshest(sources);
  }

  /**
   * Takes the smallest key from every input holding it and returns it with the record that wins
   * by {@link Record#merge}; null once every input is exhausted. Every input that is not exhausted
   * must have a record buffered.
   */
  public static RangeEntry freshest(List<? extends MergeInput> inputs) {
    byte[] smallest = null;
    for (MergeInput input : inputs) {
      RangeEntry head = input.peek();
      if (head != null && (smallest == null || Arrays.compareUnsigned(head.key(), smallest) < 0)) {
        smallest = head.key();
      }
    }
    if (smallest == null) {
      return null;
    }
    Record freshest = null;
    for (MergeInput input : inputs) {
      RangeEntry head = input.peek();
      if (head != null && Arrays.equals(head.key(), smallest)) {
        freshest = Record.merge(freshest, input.poll().record());
      }
    }
    return new RangeEntry(smallest, freshest);
  }
}
