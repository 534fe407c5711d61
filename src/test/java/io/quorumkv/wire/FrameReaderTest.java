package io.quorumkv.wire;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frames come whole and in order however the bytes are cut, and a frame the gate does not admit yet waits, paused. */
class FrameReaderTest {
  private final List<String> frames = new ArrayList<>();
  private final List<String> malformed = new ArrayList<>();

  @Test
  void framesArriveWholeHoweverTheBytesAreCut() {
    Buffer wire = frame(1, text("first")).appendBuffer(frame(2, text("")))
        .appendBuffer(frame(3, text("the third frame")));
    for (int cut = 1; cut <= wire.length(); cut++) {
      frames.clear();
      Handler<Buffer> reader = FrameReader.of(1 << 20, this::record, malformed::add);
      for (int at = 0; at < wire.length(); at += cut) {
        reader.handle(wire.getBuffer(at, Math.min(wire.length(), at + cut)));
      }
      assertEquals(List.of("1:first", "2:", "3:the third frame"), frames, "cut every " + cut + " bytes");
    }
    assertTrue(malformed.isEmpty());
  }

  @Test
  void aFrameTheGateRefusesWaitsWithItsSourcePaused() {
    FakeSource source = new FakeSource();
    boolean[] open = {false};
    List<Integer> asked = new ArrayList<>();
    Handler<Buffer> reader = FrameReader.gated(1 << 20, new FrameReader.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        asked.add(length);
        return open[0];
      }

      @Override
      public void abandoned(int length) {
      }
    }, source, this::record, malformed::add);
    Buffer wire = frame(7, text("seven")).appendBuffer(frame(8, text("eight")));
    reader.handle(wire.getBuffer(0, Frame.HEADER_BYTES + 2));
    assertTrue(source.paused, "the source pauses while the first frame waits");
    reader.handle(wire.getBuffer(Frame.HEADER_BYTES + 2, wire.length())); // bytes already on their way when it paused
    source.fireTimers();
    assertTrue(frames.isEmpty(), "nothing is read before the gate admits it");
    open[0] = true;
    source.fireTimers();
    assertEquals(List.of("7:seven", "8:eight"), frames);
    assertFalse(source.paused, "reading resumes once the frame is admitted");
    assertEquals(5, asked.get(0), "the gate is asked with the frame's length");
  }

  @Test
  void aFrameCutShortByItsConnectionIsGivenBackToTheGate() {
    List<Integer> given = new ArrayList<>();
    FrameReader reader = FrameReader.gated(1 << 20, new FrameReader.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        return true;
      }

      @Override
      public void abandoned(int length) {
        given.add(length);
      }
    }, new FakeSource(), this::record, malformed::add);
    Buffer wire = frame(9, text("nine"));
    reader.handle(wire.getBuffer(0, wire.length() - 1));
    reader.closed();
    reader.closed();
    assertEquals(List.of(4), given, "the admitted length, once");
    assertTrue(frames.isEmpty());
  }

  @Test
  void aLengthOutsideTheBoundsIsMalformed() {
    Handler<Buffer> reader = FrameReader.of(16, this::record, malformed::add);
    reader.handle(Frame.header(Frame.Kind.OPERATIONS, 1, 17));
    assertEquals(List.of("frame of 17 bytes, more than the 16 allowed"), malformed);
  }

  @Test
  void aFrameOfAnotherFormatVersionIsRefusedNamingBothAndNothingAfterItIsRead() {
    Handler<Buffer> reader = FrameReader.of(1 << 20, this::record, malformed::add);
    Buffer future = frame(1, text("from a newer node"));
    future.setByte(0, (byte) 7);
    reader.handle(future.appendBuffer(frame(2, text("after"))));
    assertEquals(List.of("wire format 7, this node speaks " + WireFormat.VERSION), malformed);
    assertTrue(frames.isEmpty(), "neither the frame nor what follows is read");
    malformed.clear();
    FrameReader.of(1 << 20, this::record, malformed::add).handle(Buffer.buffer(new byte[] {0}));
    assertEquals(List.of("wire format 0, this node speaks " + WireFormat.VERSION), malformed,
        "refused at its first byte, without waiting for a header that may never come");
  }

  @Test
  void anUnknownKindIsMalformed() {
    Handler<Buffer> reader = FrameReader.of(1 << 20, this::record, malformed::add);
    Buffer unknown = frame(1, text("x"));
    unknown.setByte(1, (byte) 99);
    reader.handle(unknown);
    assertEquals(List.of("unknown frame kind 99"), malformed);
  }

  private void record(Frame frame) {
    frames.add(frame.id() + ":" + frame.payload().toString());
  }

  private static Buffer frame(long id, Buffer payload) {
    return Frame.encode(Frame.Kind.OPERATIONS, id, payload);
  }

  private static Buffer text(String value) {
    return Buffer.buffer(value);
  }

  /** A source whose timers run when the test says. */
  private static final class FakeSource implements FrameReader.PausableSource {
    private final Queue<Runnable> timers = new ArrayDeque<>();
    boolean paused;

    @Override
    public void pause() {
      paused = true;
    }

    @Override
    public void resume() {
      paused = false;
    }

    @Override
    public void later(long delayMs, Runnable action) {
      timers.add(action);
    }

    void fireTimers() {
      int due = timers.size();
      for (int i = 0; i < due; i++) {
        timers.poll().run();
      }
    }
  }
}
