package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The merge's decisions over scripted sources, and the frames of the internal range stream. */
class RangeMergeTest {

  @Test
  void eachKeyOnceInOrderWithTheRecordThatWinsOnEveryNode() {
    FakeSource a = new FakeSource(1).add("a", Record.live(5, bytes("a-old"), Record.NEVER, 3))
        .add("c", Record.live(9, bytes("c-new"), Record.NEVER, 1)).end();
    FakeSource b = new FakeSource(2).add("a", Record.live(7, bytes("a-new"), Record.NEVER, 1))
        .add("b", Record.tombstone(4, 1)).add("c", Record.live(3, bytes("c-old"), Record.NEVER, 3)).end();
    FakeSource c = new FakeSource(3).add("b", Record.live(2, bytes("b-old"), Record.NEVER, 3))
        .add("d", Record.live(1, bytes("d"), 1_000, 1)).end();
    RangeMerge merge = new RangeMerge(List.of(a, b, c));

    List<String> merged = new ArrayList<>();
    RangeEntry next;
    while ((next = merge.next()) != null) {
      Record record = next.record();
      merged.add(text(next.key()) + "=" + (record.tombstone() ? "tombstone" : text(record.value()))
          + "@" + record.version() + " x" + record.replicas());
    }
    // The winner keeps the larger replica count, as on a replica.
    assertEquals(List.of("a=a-new@7 x3", "b=tombstone@4 x3", "c=c-new@9 x3", "d=d@1 x1"), merged);
    assertNull(merge.waitingFor());
  }

  @Test
  void theMergeWaitsForASourceWithNothingBufferedThatHasNotEnded() {
    FakeSource early = new FakeSource(1).add("b", Record.live(1, bytes("b"), Record.NEVER)).end();
    FakeSource late = new FakeSource(2);
    RangeMerge merge = new RangeMerge(List.of(early, late));
    assertSame(late, merge.waitingFor(), "the late source might still send a key before b");

    late.add("a", Record.live(1, bytes("a"), Record.NEVER));
    assertNull(merge.waitingFor());
    assertEquals("a", text(merge.next().key()));
    assertSame(late, merge.waitingFor(), "nothing from the late source is buffered and it has not ended");
    late.end();
    assertEquals("b", text(merge.next().key()));
    assertNull(merge.next());
  }

  @Test
  void recordFramesRoundTripAndTheEndFrameCountsThem() {
    List<RangeEntry> entries = List.of(
        new RangeEntry(bytes("k1"), Record.live(42, bytes("value"), 1234, 2)),
        new RangeEntry(bytes("k2"), Record.tombstone(43, 3)),
        new RangeEntry(bytes("k3"), Record.live(44, new byte[0], Record.NEVER)));
    Buffer stream = RangeProtocol.encodeRecords(entries).appendBuffer(RangeProtocol.encodeEnd(3));
    List<Frame> frames = new ArrayList<>();
    FrameReader.of(1 << 20, frames::add, malformed -> { throw new AssertionError(malformed); }).handle(stream);
    assertEquals(4, frames.size());
    for (int i = 0; i < entries.size(); i++) {
      RangeEntry expected = entries.get(i);
      assertEquals(Frame.Kind.RECORD, frames.get(i).kind());
      RangeEntry decoded = RangeProtocol.decodeRecord(frames.get(i).payload());
      assertArrayEquals(expected.key(), decoded.key());
      assertEquals(expected.record().version(), decoded.record().version());
      assertEquals(expected.record().tombstone(), decoded.record().tombstone());
      assertEquals(expected.record().expiresAt(), decoded.record().expiresAt());
      assertEquals(expected.record().replicas(), decoded.record().replicas());
      assertArrayEquals(expected.record().value(), decoded.record().value());
    }
    assertEquals(Frame.Kind.END, frames.get(3).kind());
    assertEquals(3, RangeProtocol.decodeEnd(frames.get(3).payload()));
  }

  @Test
  void malformedFramesAreRefused() {
    List<String> malformed = new ArrayList<>();
    Buffer unknown = RangeProtocol.encodeEnd(0);
    unknown.setByte(1, (byte) 9);
    FrameReader.of(1 << 20, frame -> { }, malformed::add).handle(unknown);
    FrameReader.of(1 << 20, frame -> { }, malformed::add).handle(Frame.header(Frame.Kind.RECORD, 0, 2 << 20));
    assertEquals(2, malformed.size(), "an unknown kind, and a frame larger than allowed: " + malformed);
    assertThrows(IllegalArgumentException.class, () -> RangeProtocol.decodeEnd(Buffer.buffer(new byte[7])));
    Buffer record = RangeProtocol.encodeRecords(List.of(new RangeEntry(bytes("k"), Record.live(1, bytes("v"), 0))));
    Buffer payload = record.getBuffer(Frame.HEADER_BYTES, record.length());
    assertThrows(IllegalArgumentException.class,
        () -> RangeProtocol.decodeRecord(payload.getBuffer(0, payload.length() - 1)), "cut short");
    assertTrue(RangeProtocol.decodeRecord(payload).record().isLive(0));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A source whose records and end the test hands in. */
  private static final class FakeSource implements RangeSource {
    private final NodeUrl node;
    private final ArrayDeque<RangeEntry> buffered = new ArrayDeque<>();
    private boolean ended;

    FakeSource(int index) {
      this.node = new NodeUrl("127.0.0.1", 18_100 + index);
    }

    FakeSource add(String key, Record record) {
      buffered.add(new RangeEntry(bytes(key), record));
      return this;
    }

    FakeSource end() {
      ended = true;
      return this;
    }

    @Override
    public NodeUrl node() {
      return node;
    }

    @Override
    public void start(Listener listener) {
    }

    @Override
    public RangeEntry peek() {
      return buffered.peek();
    }

    @Override
    public RangeEntry poll() {
      return buffered.poll();
    }

    @Override
    public boolean exhausted() {
      return ended && buffered.isEmpty();
    }

    @Override
    public boolean started() {
      return ended || !buffered.isEmpty();
    }

    @Override
    public void close() {
    }
  }
}
