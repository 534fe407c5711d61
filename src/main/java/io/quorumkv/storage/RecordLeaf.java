package io.quorumkv.storage;

/**
 * What a record contributes to anti-entropy's hash trees: its {@link RecordDigest#leafOf leaf}
 * and its replica count (which nodes share the key).
 */
public record RecordLeaf(long leaf, int replicas) {
  public static RecordLeaf of(byte[] key, Record record) {
    return new RecordLeaf(RecordDigest.leafOf(key, record), record.replicas());
  }
}
