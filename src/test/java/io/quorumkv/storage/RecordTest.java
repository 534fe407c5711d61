package io.quorumkv.storage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
  void encodingIsTheDocumentedLayout() {
    byte[] bytes = RecordCodec.encode(Record.live(0x0102030405060708L, new byte[] {9}, 0x1112131415161718L));
    assertArrayEquals(new byte[] {1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 9}, bytes);
    assertEquals(1, RecordCodec.encode(Record.tombstone(1))[1]);
  }

  @Test
  void decodeRejectsForeignBytes() {
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[] {7, 0, 0}));
    assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(new byte[RecordCodec.HEADER_BYTES]));
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
