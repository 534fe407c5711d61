package io.quorumkv.replication;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/**
 * Cuts a connection's bytes into {@link BatchFrames}: a length, then a buffer of exactly that
 * size filled from the chunks as they come (a growing buffer would copy a large frame twice more).
 * Before a frame is read, its {@link BatchFrames.Gate} must admit its length; until it does, the
 * source is paused and the rest of the current chunk kept. Used on one event loop.
 */
final class FrameReader implements BatchFrames.Reader {
  static final long RETRY_MS = 10;

  private final int maxFrameBytes;
  private final BatchFrames.Gate gate;
  private final BatchFrames.PausableSource source;
  private final BatchFrames.FrameHandler onFrame;
  private final Handler<String> onMalformed;
  /** The length's bytes read so far, and their value. */
  private int lengthBytesRead;
  private int lengthSoFar;
  private Buffer frame;
  private int frameLength;
  /** Bytes received while a frame waited for the gate. */
  private Buffer held;
  private boolean waiting;
  private boolean broken;
  private boolean closed;

  FrameReader(int maxFrameBytes, BatchFrames.Gate gate, BatchFrames.PausableSource source,
              BatchFrames.FrameHandler onFrame, Handler<String> onMalformed) {
    this.maxFrameBytes = maxFrameBytes;
    this.gate = gate;
    this.source = source;
    this.onFrame = onFrame;
    this.onMalformed = onMalformed;
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
      if (frame == null) {
        while (lengthBytesRead < BatchFrames.LENGTH_BYTES && at < chunk.length()) {
          lengthSoFar = (lengthSoFar << 8) | (chunk.getByte(at++) & 0xFF);
          lengthBytesRead++;
        }
        if (lengthBytesRead < BatchFrames.LENGTH_BYTES) {
          return;
        }
        frameLength = lengthSoFar;
        lengthBytesRead = 0;
        lengthSoFar = 0;
        if (frameLength < BatchFrames.ID_BYTES || frameLength > maxFrameBytes) {
          broken = true;
          onMalformed.handle("frame of " + frameLength + " bytes, expected " + BatchFrames.ID_BYTES + " to "
              + maxFrameBytes);
          return;
        }
        if (!gate.tryAdmit(frameLength)) {
          waitForGate(chunk, at);
          return;
        }
        frame = Buffer.buffer(frameLength);
      }
      int take = Math.min(frameLength - frame.length(), chunk.length() - at);
      frame.appendBuffer(chunk, at, take);
      at += take;
      if (frame.length() == frameLength) {
        Buffer whole = frame;
        frame = null;
        onFrame.frame(whole.getLong(0), whole.slice(BatchFrames.ID_BYTES, whole.length()));
      }
    }
  }

  /** Keeps what is left of the chunk, pauses the source, and asks the gate again until it admits the frame. */
  private void waitForGate(Buffer chunk, int at) {
    waiting = true;
    held = at < chunk.length() ? chunk.getBuffer(at, chunk.length()) : null;
    source.pause();
    source.later(RETRY_MS, this::retryGate);
  }

  @Override
  public void closed() {
    closed = true;
    if (frame != null) {
      frame = null;
      gate.abandoned(frameLength);
    }
  }

  private void retryGate() {
    if (closed) {
      return;
    }
    if (!gate.tryAdmit(frameLength)) {
      source.later(RETRY_MS, this::retryGate);
      return;
    }
    waiting = false;
    frame = Buffer.buffer(frameLength);
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
