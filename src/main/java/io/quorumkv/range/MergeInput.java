package io.quorumkv.range;

import io.quorumkv.storage.RangeEntry;

/** One sorted input of a {@link RangeMerge}: a node's range stream, or a backup's cursor. */
public interface MergeInput {
  /** The next record, or null when none is buffered: {@link #exhausted()}, or still on its way. */
  RangeEntry peek();

  /** Takes the record {@link #peek()} returned (not null). */
  RangeEntry poll();

  /** True once the input ended and every record was taken. */
  boolean exhausted();
}
