package io.quorumkv.hints;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;

/**
 * A write that replica {@code target} missed, kept on the coordinator until it is delivered.
 *
 * @param sequence orders a target's hints oldest first; its clock time is when the hint was stored
 */
public record Hint(NodeUrl target, long sequence, byte[] key, Record record) {
}
