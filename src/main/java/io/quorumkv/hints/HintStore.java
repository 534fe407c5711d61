package io.quorumkv.hints;

import io.quorumkv.config.NodeUrl;

import java.util.List;
import java.util.Map;

/** Where a coordinator keeps its hints, durably. Blocking: storage workers only. */
public interface HintStore {

  /** Keeps the hint; it is in the write-ahead log when this returns. */
  void put(Hint hint);

  /** The target's oldest hints with a sequence above {@code afterSequence}, at most {@code limit}. */
  List<Hint> oldest(NodeUrl target, long afterSequence, int limit);

  /** Deletes the target's hints with a sequence below {@code sequence}; returns how many. */
  long dropBefore(NodeUrl target, long sequence);

  void delete(NodeUrl target, long sequence);

  /** How many hints are stored for each target. */
  Map<NodeUrl, Long> countByTarget();
}
