package io.quorumkv.wire;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/**
 * Cuts a connection's bytes into {@link Frame}s: a header, then a payload buffer of exactly its
 * size filled from the chunks as they come (a growing buffer would copy a large frame twice more).
 * A header of another format version, of an unknown kind or announcing more than
 * {@code maxPayloadBytes} is malformed: {@code onMalformed} gets why, and nothing after it is read.
 * Before a payload is read, the {@link Gate} must admit its length; until it does, the source is
 * paused and the rest of the current chunk kept. Used on one event loop.
 */
public final class FrameReader implements Handler<Buffer> {
  static final long RETRY_MS = 10;

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

    /** Whether a payload of {@code length} bytes may be read now; if so, it counts as taken until its reader says. */
    boolean tryAdmit(int length);

    /** A payload admitted with {@code length} will never be whole: its connection closed midway. */
    void abandoned(int length);
  }

  /** What a gated reader pauses and resumes, and the timer it retries on. */
  public interface PausableSource {
    void pause();

    void resume();

    void later(long delayMs, Runnable action);
  }

  private final int maxPayloadBytes;
  private final Gate gate;
  private final PausableSource source;
  private final Handler<Frame> onFrame;
  private final Handler<String> onMalformed;
  private final byte[] headerBytes = new byte[Frame.HEADER_BYTES];
  private int headerRead;
  private Frame.Header header;
  private Buffer payload;
  /** Bytes received while a frame waited for the gate. */
  private Buffer held;
  private boolean waiting;
  private boolean broken;
  private boolean closed;

  private FrameReader(int maxPayloadBytes, Gate gate, PausableSource source, Handler<Frame> onFrame,
                      Handler<String> onMalformed) {
    this.maxPayloadBytes = maxPayloadBytes;
    this.gate = gate;
    this.source = source;
    this.onFrame = onFrame;
    this.onMalformed = onMalformed;
  }

  /** A reader that reads every frame at once. */
  public static FrameReader of(int maxPayloadBytes, Handler<Frame> onFrame, Handler<String> onMalformed) {
    return new FrameReader(maxPayloadBytes, Gate.OPEN, null, onFrame, onMalformed);
  }

  /**
   * A reader that reads a payload only once {@code gate} admits its length: until then
   * {@code source} is paused, and asked again every {@link #RETRY_MS}.
   */
  public static FrameReader gated(int maxPayloadBytes, Gate gate, PausableSource source, Handler<Frame> onFrame,
                                  Handler<String> onMalformed) {
    return new FrameReader(maxPayloadBytes, gate, source, onFrame, onMalformed);
  }

  @Override
  public void handle(Buffer chunk) {
    if (waiting) {
      held = held == null ? chunk.copy() : held.appendBuffer(chunk);
      return;
    }
    consume(chunk, 0);
  }

  private void consume(Buffer chunk, int from) {
    int at = from;
    while (at < chunk.length() && !broken) {
      if (payload == null) {
        int take = Math.min(Frame.HEADER_BYTES - headerRead, chunk.length() - at);
        chunk.getBytes(at, at + take, headerBytes, headerRead);
        at += take;
        headerRead += take;
        if (!speaksVersion() || headerRead < Frame.HEADER_BYTES || !readHeader()) {
          return;
        }
        if (!gate.tryAdmit(header.length())) {
          waitForGate(chunk, at);
          return;
        }
        payload = Buffer.buffer(header.length());
      }
      int take = Math.min(header.length() - payload.length(), chunk.length() - at);
      payload.appendBuffer(chunk, at, take);
      at += take;
      deliverIfWhole();
    }
  }

  /** Whether the frame's first byte, as soon as it is here, is this node's format version; once malformed, when not. */
  private boolean speaksVersion() {
    try {
      WireFormat.check(headerBytes[0]);
      return true;
    } catch (IllegalArgumentException other) {
      return malformed(other.getMessage());
    }
  }

  /** Decodes the header just read; false, once malformed, when it is. */
  private boolean readHeader() {
    headerRead = 0;
    try {
      header = Frame.Header.decode(Buffer.buffer(headerBytes));
    } catch (IllegalArgumentException malformed) {
      return malformed(malformed.getMessage());
    }
    if (header.length() > maxPayloadBytes) {
      return malformed("frame of " + header.length() + " bytes, more than the " + maxPayloadBytes + " allowed");
    }
    return true;
  }

  private boolean malformed(String why) {
    broken = true;
    onMalformed.handle(why);
    return false;
  }

  private void deliverIfWhole() {
    if (payload.length() == header.length()) {
      Buffer whole = payload;
      payload = null;
      onFrame.handle(new Frame(header.kind(), header.id(), whole));
    }
  }

  /** Keeps what is left of the chunk, pauses the source, and asks the gate again until it admits the frame. */
  private void waitForGate(Buffer chunk, int at) {
    waiting = true;
    held = at < chunk.length() ? chunk.getBuffer(at, chunk.length()) : null;
    source.pause();
    source.later(RETRY_MS, this::retryGate);
  }

  /** The connection closed: a payload admitted but not yet whole is given back to the gate. */
  public void closed() {
    closed = true;
    if (payload != null) {
      payload = null;
      gate.abandoned(header.length());
    }
  }

  private void retryGate() {
    if (closed) {
      return;
    }
    if (!gate.tryAdmit(header.length())) {
      source.later(RETRY_MS, this::retryGate);
      return;
    }
    waiting = false;
    payload = Buffer.buffer(header.length());
    deliverIfWhole();
    Buffer pending = held;
    held = null;
    if (pending != null) {
      consume(pending, 0);
    }
    if (!waiting) {
      source.resume();
    }
  }
}
