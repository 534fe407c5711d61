package io.quorumkv.replication;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.parsetools.RecordParser;

/**
 * The frames of a batch stream ({@link InternalProtocol#STREAM_PATH}): a 4-byte length, then that
 * many bytes: an 8-byte id the coordinator chose, and the batch's operations (coordinator to
 * replica) or its answers (replica to coordinator) in {@link RecordBatchCodec}'s format. Answers
 * carry the id of their batch and may come in any order.
 */
public final class BatchFrames {
  static final int LENGTH_BYTES = 4;
  static final int ID_BYTES = 8;

  private BatchFrames() {
  }

  /** What a reader hands on: one whole frame's id and payload. */
  @FunctionalInterface
  public interface FrameHandler {
    void frame(long id, Buffer payload);
  }

  public static Buffer frame(long id, Buffer payload) {
    return Buffer.buffer(LENGTH_BYTES + ID_BYTES + payload.length())
        .appendInt(ID_BYTES + payload.length()).appendLong(id).appendBuffer(payload);
  }

  /**
   * A handler for a connection's bytes that cuts them into frames. A length below the id's or
   * above {@code maxFrameBytes} is malformed: {@code onMalformed} gets why, and nothing after it is read.
   */
  public static Handler<Buffer> reader(int maxFrameBytes, FrameHandler onFrame, Handler<String> onMalformed) {
    RecordParser parser = RecordParser.newFixed(LENGTH_BYTES);
    parser.handler(new Handler<>() {
      private boolean expectingLength = true;
      private boolean broken;

      @Override
      public void handle(Buffer bytes) {
        if (broken) {
          return;
        }
        if (expectingLength) {
          int length = bytes.getInt(0);
          if (length < ID_BYTES || length > maxFrameBytes) {
            broken = true;
            onMalformed.handle("frame of " + length + " bytes, expected " + ID_BYTES + " to " + maxFrameBytes);
            return;
          }
          expectingLength = false;
          parser.fixedSizeMode(length);
        } else {
          expectingLength = true;
          parser.fixedSizeMode(LENGTH_BYTES);
          onFrame.frame(bytes.getLong(0), bytes.getBuffer(ID_BYTES, bytes.length()));
        }
      }
    });
    return parser;
  }
}
