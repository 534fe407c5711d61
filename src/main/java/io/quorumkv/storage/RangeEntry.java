package io.quorumkv.storage;

/** One live record of a range scan. */
public record RangeEntry(byte[] key, byte[] value) {
}
