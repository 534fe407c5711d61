package io.quorumkv.storage;

/**
 * A record as anti-entropy sees it, from the index column family.
 *
 * @param key      the record's key
 * @param segment  {@link RecordDigest#segmentOf} the key
 * @param leaf     {@link RecordDigest#leafOf} the record
 * @param replicas the record's replica count, which says which nodes share it
 * @param storedAt this node's wall-clock millis when the record took its current form here
 */
public record IndexEntry(byte[] key, int segment, long leaf, int replicas, long storedAt) {
}
