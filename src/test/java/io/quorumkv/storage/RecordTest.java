package io.quorumkv.storage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordTest {

  @Test
  void codecRoundTripsLiveRecordsAndTombstones() {
    Record live = Record.live(123456789L, "hello".getBytes(StandardCharsets.UTF_8), 987654321L);
    Record decoded = RecordCodec.decode(RecordCodec.encode(live));
    assertEquals(live.version(), decoded.version());
    assertEquals(live.expiresAt(), decoded.expiresAt());
    assertFalse(decoded.tombstone());
    assertArrayEquals(live.value(), decoded.value());

    Record tombstone = RecordCodec.decode(RecordCodec.encode(Record.tombstone(42)));
    assertTrue(tombstone.tombstone());
    assertEquals(42, tombstone.version());
    assertEquals(0, tombstone.value().length);
  }

  @Test
  void codecRoundTripsTheReplicaCount() {
    for (int replicas : new int[] {1, 3, 300, Record.EVERY_NODE}) {
      assertEquals(replicas, RecordCodec.decode(RecordCodec.encode(Record.live(1, new byte[] {1}, 0, replicas))).replicas());
      assertEquals(replicas, RecordCodec.decode(RecordCodec.encode(Record.tombstone(1, replicas))).replicas());
    }
  }

  @Test
  void encodingIsTheDocumentedLayout() {
    byte[] bytes = RecordCodec.encode(Record.live(0x0102030405060708L, new byte[] {9}, 0x1112131415161718L, 0x0203));
    assertArrayEquals(new byte[] {2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 2, 3, 9},
        bytes);
    assertEquals(1, RecordCodec.encode(Record.tombstone(1))[1]);
  }

  @Test
  void aFormat1RecordStillDecodesWithEveryNodeAsItsHome() {
    byte[] format1 = {1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 9, 10};
    Record live = RecordCodec.decode(format1);
    assertEquals(0x0102030405060708L, live.version());
    assertEquals(0x1112131415161718L, live.expiresAt());
    assertFalse(live.tombstone());
    assertArrayEquals(new byte[] {9, 10}, live.value());
    assertEquals(Record.EVERY_NODE, live.replicas());

    Record tombstone = RecordCodec.decode(new byte[] {1, 1, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0, 0});
    assertTrue(tombstone.tombstone());
    assertEquals(42, tombstone.version());
    assertEquals(0, tombstone.value().length);
    assertEquals(Record.EVERY_NODE, tombstone.replicas());
  }

  @Test
  void decodeRejectsForeignBytes() {
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[] {7, 0, 0}));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[RecordCodec.HEADER_BYTES]));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[RecordCodec.FORMAT_1_HEADER_BYTES - 1]),
        "a format-1 header cut short");
    byte[] format2Short = new byte[RecordCodec.HEADER_BYTES - 1];
    format2Short[0] = RecordCodec.FORMAT;
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(format2Short), "a format-2 header cut short");
    byte[] noReplicas = RecordCodec.encode(Record.tombstone(1, 1));
    noReplicas[19] = 0;
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(noReplicas), "a replica count of 0");
  }

  @Test
  void theReplicaCountIsBetweenOneAndEveryNode() {
    assertThrows(IllegalArgumentException.class, () -> Record.tombstone(1, 0));
    assertThrows(IllegalArgumentException.class, () -> Record.tombstone(1, Record.EVERY_NODE + 1));
  }

  @Test
  void theReplicaCountNeverDecidesTheWinner() {
    Record narrow = Record.live(5, new byte[] {1}, 0, 1);
    Record wide = Record.live(5, new byte[] {1}, 0, 3);
    assertFalse(narrow.supersedes(wide));
    assertFalse(wide.supersedes(narrow));
    assertTrue(Record.live(6, new byte[] {1}, 0, 1).supersedes(wide));
  }

  @Test
  void meetingCopiesKeepTheWinnerWithTheLargerCountWhateverTheOrder() {
    Record older = Record.live(1, new byte[] {1}, 0, 3);
    Record newer = Record.live(2, new byte[] {2}, 0, 1);
    for (Record merged : new Record[] {Record.merge(older, newer), Record.merge(newer, older)}) {
      assertEquals(2, merged.version());
      assertArrayEquals(new byte[] {2}, merged.value());
      assertEquals(3, merged.replicas());
    }
    Record narrowCopy = older.withReplicas(1);
    assertEquals(3, Record.merge(older, narrowCopy).replicas());
    assertEquals(3, Record.merge(narrowCopy, older).replicas());
  }

  @Test
  void mergeReturnsTheRecordItKeepsUnchangedAsItself() {
    Record stored = Record.live(2, new byte[] {2}, 0, 3);
    Record incoming = Record.live(3, new byte[] {3}, 0, 3);
    assertSame(incoming, Record.merge(null, incoming));
    assertSame(incoming, Record.merge(stored, incoming), "an incoming winner as wide as the stored one");
    assertSame(stored, Record.merge(stored, Record.live(1, new byte[] {1}, 0, 2)), "a stored winner at least as wide");
  }

  @Test
  void higherVersionWins() {
    Record older = Record.live(1, new byte[] {9}, 0);
    Record newer = Record.tombstone(2);
    assertTrue(newer.supersedes(older));
    assertFalse(older.supersedes(newer));
    assertTrue(older.supersedes(null));
  }

  @Test
  void tiesAreSettledTheSameWayWhateverTheOrder() {
    Record a = Record.live(5, new byte[] {1}, 0);
    Record b = Record.live(5, new byte[] {2}, 0);
    Record t = Record.tombstone(5);
    Record expiring = Record.live(5, new byte[] {2}, 100);
    assertTrue(t.supersedes(a) && !a.supersedes(t), "tombstone beats a value");
    assertTrue(b.supersedes(a) && !a.supersedes(b), "greater value bytes win");
    assertTrue(b.supersedes(expiring) && !expiring.supersedes(b), "no expiry beats an expiry");
    assertFalse(a.supersedes(Record.live(5, new byte[] {1}, 0)), "an identical record does not supersede");
  }

  @Test
  void liveness() {
    assertTrue(Record.live(1, new byte[0], Record.NEVER).isLive(Long.MAX_VALUE));
    assertTrue(Record.live(1, new byte[0], 100).isLive(99));
    assertFalse(Record.live(1, new byte[0], 100).isLive(100));
    assertFalse(Record.tombstone(1).isLive(0));
  }
}
