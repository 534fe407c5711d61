package io.quorumkv.replication;

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
    Buffer wire = BatchFrames.frame(1, text("first")).appendBuffer(BatchFrames.frame(2, text("")))
        .appendBuffer(BatchFrames.frame(3, text("the third frame")));
    for (int cut = 1; cut <= wire.length(); cut++) {
      frames.clear();
      Handler<Buffer> reader = BatchFrames.reader(1 << 20, this::record, malformed::add);
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
    Handler<Buffer> reader = BatchFrames.reader(1 << 20, new BatchFrames.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        asked.add(length);
        return open[0];
      }

      @Override
      public void abandoned(int length) {
      }
    }, source, this::record, malformed::add);
    Buffer wire = BatchFrames.frame(7, text("seven")).appendBuffer(BatchFrames.frame(8, text("eight")));
    reader.handle(wire.getBuffer(0, 6));
    assertTrue(source.paused, "the source pauses while the first frame waits");
    reader.handle(wire.getBuffer(6, wire.length())); // bytes already on their way when it paused
    source.fireTimers();
    assertTrue(frames.isEmpty(), "nothing is read before the gate admits it");
    open[0] = true;
    source.fireTimers();
    assertEquals(List.of("7:seven", "8:eight"), frames);
    assertFalse(source.paused, "reading resumes once the frame is admitted");
    assertEquals(8 + 5, asked.get(0), "the gate is asked with the frame's length");
  }

  @Test
  void aFrameCutShortByItsConnectionIsGivenBackToTheGate() {
    List<Integer> given = new ArrayList<>();
    BatchFrames.Reader reader = BatchFrames.reader(1 << 20, new BatchFrames.Gate() {
      @Override
      public boolean tryAdmit(int length) {
        return true;
      }

      @Override
      public void abandoned(int length) {
        given.add(length);
      }
    }, new FakeSource(), this::record, malformed::add);
    Buffer wire = BatchFrames.frame(9, text("nine"));
    reader.handle(wire.getBuffer(0, wire.length() - 1));
    reader.closed();
    reader.closed();
    assertEquals(List.of(8 + 4), given, "the admitted length, once");
    assertTrue(frames.isEmpty());
  }

  @Test
  void aLengthOutsideTheBoundsIsMalformed() {
    Handler<Buffer> reader = BatchFrames.reader(16, this::record, malformed::add);
    reader.handle(Buffer.buffer().appendInt(17).appendLong(1));
    assertEquals(List.of("frame of 17 bytes, expected 8 to 16"), malformed);
  }

  private void record(long id, Buffer payload) {
    frames.add(id + ":" + payload.toString());
  }

  private static Buffer text(String value) {
    return Buffer.buffer(value);
  }

  /** A source whose timers run when the test says. */
  private static final class FakeSource implements BatchFrames.PausableSource {
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
