package io.quorumkv.hints;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RecordCodec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How a hint is laid out in RocksDB. The key is the target's url, a zero byte and the sequence
 * (big-endian), so a target's hints are adjacent and oldest first; the value is the record's key
 * (length-prefixed) followed by the record in {@link RecordCodec}'s encoding.
 */
final class HintCodec {
  private HintCodec() {
  }

  /** The prefix shared by every hint of the target. */
  static byte[] prefix(NodeUrl target) {
    byte[] url = target.toString().getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(url, url.length + 1);
  }

  static byte[] key(NodeUrl target, long sequence) {
    byte[] prefix = prefix(target);
    return ByteBuffer.allocate(prefix.length + Long.BYTES).put(prefix).putLong(sequence).array();
  }

  static byte[] value(Hint hint) {
    byte[] record = RecordCodec.encode(hint.record());
    return ByteBuffer.allocate(Integer.BYTES + hint.key().length + record.length)
        .putInt(hint.key().length).put(hint.key()).put(record).array();
  }

  static NodeUrl targetOf(byte[] key) {
    return NodeUrl.parse("hint target", new String(key, 0, key.length - 1 - Long.BYTES, StandardCharsets.UTF_8));
  }

  static long sequenceOf(byte[] key) {
    return ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
  }

  static Hint decode(byte[] key, byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    byte[] recordKey = new byte[buffer.getInt()];
    buffer.get(recordKey);
    byte[] record = new byte[buffer.remaining()];
    buffer.get(record);
    return new Hint(targetOf(key), sequenceOf(key), recordKey, RecordCodec.decode(record));
  }
}
