package io.quorumkv.replication;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;

import java.util.List;

/**
 * The frames of a batch stream ({@code peer.InternalEndpoint.RECORD_STREAM}): a 4-byte length, then that
 * many bytes: an 8-byte id the coordinator chose, and the batch's operations (coordinator to
 * replica) or its answers (replica to coordinator) in {@link RecordBatchCodec}'s format. Answers
 * carry the id of their batch and may come in any order.
 */
public final class BatchFrames {
  static final int LENGTH_BYTES = 4;
  public static final int ID_BYTES = 8;

  private BatchFrames() {
  }

  /** What a reader hands on: one whole frame's id and payload. */
  @FunctionalInterface
  public interface FrameHandler {
    void frame(long id, Buffer payload);
  }

  public static Buffer frame(long id, Buffer payload) {
    return Buffer.buffer(LENGTH_BYTES + ID_BYTES + payload.length()).appendBuffer(header(id, payload))
        .appendBuffer(payload);
  }

  /** Writes a frame as its header and then its payload, so that a large payload is not copied again. */
  public static void write(WriteStream<Buffer> out, long id, Buffer payload) {
    write(out, id, List.of(payload));
  }

  /** Writes a frame whose payload comes in parts, each as it is (a large value wrapped, not copied). */
  public static void write(WriteStream<Buffer> out, long id, List<Buffer> payload) {
    out.write(header(id, payload.stream().mapToInt(Buffer::length).sum()));
    payload.forEach(out::write);
  }

  private static Buffer header(long id, Buffer payload) {
    return header(id, payload.length());
  }

  private static Buffer header(long id, int payloadLength) {
    return Buffer.buffer(LENGTH_BYTES + ID_BYTES).appendInt(ID_BYTES + payloadLength).appendLong(id);
  }

  /** Lets a frame of a given length be read now, or not yet. */
  public interface Gate {
    /** Every frame may be read at once. */
    Gate OPEN = new Gate() {
      @Override
      public boolean tryAdmit(int length) {
        return true;
      }

      @Override
      public void abandoned(int length) {
      }
    };

    /** Whether a frame of {@code length} bytes may be read now; if so, it counts as taken until its reader says. */
    boolean tryAdmit(int length);

    /** A frame admitted with {@code length} will never be whole: its connection closed midway. */
    void abandoned(int length);
  }

  /** A reader of frames, told when its connection closed. */
  public interface Reader extends Handler<Buffer> {
    /** The connection closed: a frame admitted but not yet whole is given back to the gate. */
    void closed();
  }

  /**
   * A handler for a connection's bytes that cuts them into frames. A length below the id's or
   * above {@code maxFrameBytes} is malformed: {@code onMalformed} gets why, and nothing after it is read.
   */
  public static Handler<Buffer> reader(int maxFrameBytes, FrameHandler onFrame, Handler<String> onMalformed) {
    return new FrameReader(maxFrameBytes, Gate.OPEN, null, onFrame, onMalformed);
  }

  /**
   * {@link #reader(int, FrameHandler, Handler)}, reading a frame only once {@code gate} admits its
   * length: until then {@code source} is paused, and asked again every {@link FrameReader#RETRY_MS}.
   * Each frame is read into a buffer of its exact size, never grown or copied.
   */
  public static Reader reader(int maxFrameBytes, Gate gate, PausableSource source, FrameHandler onFrame,
                              Handler<String> onMalformed) {
    return new FrameReader(maxFrameBytes, gate, source, onFrame, onMalformed);
  }

  /** What a gated reader pauses and resumes, and the timer it retries on. */
  public interface PausableSource {
    void pause();

    void resume();

    void later(long delayMs, Runnable action);
  }
}
