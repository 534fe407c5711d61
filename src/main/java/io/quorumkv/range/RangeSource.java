package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeEntry;

/**
 * One node's records of a cluster-wide range, in key order, tombstones and expired records
 * included, buffered a little ahead of the merge (a batch or so; past that the source stops
 * reading). Used on one event loop only.
 */
public interface RangeSource extends MergeInput {

  NodeUrl node();

  /** Starts reading; the listener is called on this event loop. Call once. */
  void start(Listener listener);

  /** Whether anything (a record or the end) has arrived yet. */
  boolean started();

  /** Stops reading and releases the cursor or connection; the listener hears nothing more. Idempotent. */
  void close();

  /** Hears a source's news, on its event loop. */
  interface Listener {
    /** Records arrived while none was buffered, or the source ended. */
    void ready();

    /** The source cannot go on; it stays failed. */
    void failed(RangeSource source, Throwable cause);
  }
}
