package io.quorumkv.storage;

/**
 * Told of every change to a stored record, once it is written, on the storage worker that wrote
 * it and under the key's lock: keep it short and never block.
 */
@FunctionalInterface
public interface RecordChangeListener {
  RecordChangeListener NONE = (key, before, after) -> { };

  /** @param before the leaf of the record replaced, null if none; @param after the leaf of the record now kept, null once purged */
  void changed(byte[] key, RecordLeaf before, RecordLeaf after);
}
