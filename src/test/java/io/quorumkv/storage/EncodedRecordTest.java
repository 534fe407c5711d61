package io.quorumkv.storage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A stored record read in place orders, digests and merges exactly as the decoded record does:
 * every pair of a set of records that differ in each field, both ways round.
 */
class EncodedRecordTest {
  private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);

  @Test
  void aRecordReadInPlaceOrdersDigestsAndMergesAsTheDecodedOne() {
    List<Record> records = records();
    for (Record stored : records) {
      EncodedRecord encoded = EncodedRecord.of(RecordCodec.encode(stored));
      assertEquals(RecordLeaf.of(KEY, stored), encoded.leaf(KEY), "leaf of " + stored);
      for (Record incoming : records) {
        String pair = stored + " / " + incoming;
        int expected = stored.supersedes(incoming) ? 1 : incoming.supersedes(stored) ? -1 : 0;
        assertEquals(expected, Integer.signum(EncodedRecord.of(RecordCodec.encode(stored)).compareTo(incoming)), pair);

        Record merged = Record.merge(stored, incoming);
        Merge merge = Merge.of(KEY, EncodedRecord.of(RecordCodec.encode(stored)), incoming);
        assertEquals(describe(merged), describe(merge.kept()), pair);
        assertEquals(merged != stored, merge.changed(), pair);
        if (merge.changed()) {
          assertEquals(RecordLeaf.of(KEY, stored), merge.before(), pair);
          byte[] written = merge.encoded() != null ? merge.encoded() : RecordCodec.encode(merge.kept());
          assertEquals(describe(merged), describe(RecordCodec.decode(written)), pair);
        }
      }
    }
  }

  @Test
  void aRecordOfTheFirstFormatTakesAReplicaCountByBeingWrittenAnew() {
    byte[] value = "old".getBytes(StandardCharsets.UTF_8);
    byte[] formatOne = ByteBuffer.allocate(RecordCodec.FORMAT_1_HEADER_BYTES + value.length)
        .put(RecordCodec.FORMAT_1).put((byte) 0).putLong(5).putLong(Record.NEVER).put(value).array();
    EncodedRecord stored = EncodedRecord.of(formatOne);
    assertEquals(Record.EVERY_NODE, stored.replicas());
    Record rewritten = RecordCodec.decode(stored.withReplicas(3));
    assertEquals(3, rewritten.replicas());
    assertArrayEquals(value, rewritten.value());
    assertEquals(RecordLeaf.of(KEY, RecordCodec.decode(formatOne)), stored.leaf(KEY));
  }

  private static List<Record> records() {
    Random random = new Random(7);
    List<Record> records = new ArrayList<>();
    for (long version : new long[] {1, 2}) {
      for (int replicas : new int[] {1, 3}) {
        records.add(Record.tombstone(version, replicas));
        for (long expiresAt : new long[] {Record.NEVER, 10, 20}) {
          for (String value : new String[] {"", "a", "b", "ab"}) {
            records.add(Record.live(version, value.getBytes(StandardCharsets.UTF_8), expiresAt, replicas));
          }
        }
      }
    }
    byte[] large = new byte[LargeValueSizes.LARGE_BYTES];
    random.nextBytes(large);
    records.add(Record.live(2, large, Record.NEVER, 3));
    records.add(Record.live(2, large.clone(), Record.NEVER, 2));
    return records;
  }

  private static String describe(Record record) {
    return record.version() + (record.tombstone() ? " tombstone" : " live") + " expires " + record.expiresAt()
        + " replicas " + record.replicas() + " value " + java.util.Arrays.hashCode(record.value()) + "/"
        + record.value().length;
  }
}
