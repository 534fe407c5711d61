package io.quorumkv.wire;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;

import java.util.ArrayList;
import java.util.List;

/**
 * The one frame of every internal stream and binary body: replica batches and their answers
 * (a {@code RECORD_BATCH} body, each frame of a {@code RECORD_STREAM}), the internal range and
 * transfer streams, and a restore's batches. Big-endian:
 * <pre>
 * format version (byte, {@link WireFormat#VERSION}) | kind (byte) | id (long) | payload length (int) | payload
 * </pre>
 * The id is the batch's on a batch stream (answers carry their batch's), 0 elsewhere.
 *
 * @param payload the bytes after the header, in the layout of the kind
 */
public record Frame(Kind kind, long id, Buffer payload) {
  public static final int HEADER_BYTES = 1 + 1 + 8 + 4;

  /** What a frame's payload holds. */
  public enum Kind {
    /** A batch of reads and writes ({@link BatchOperations}). */
    OPERATIONS(1),
    /** The answers to a batch, one per operation in its order ({@code replication.BatchAnswers}). */
    ANSWERS(2),
    /** One record of a range stream: its key and record ({@link RecordLayout#appendEntry}). */
    RECORD(3),
    /** The end of a range stream: the count of records sent (long). */
    END(4);

    private static final Kind[] ALL = values();
    private final byte code;

    Kind(int code) {
      this.code = (byte) code;
    }

    static Kind of(byte code) {
      for (Kind kind : ALL) {
        if (kind.code == code) {
          return kind;
        }
      }
      throw new IllegalArgumentException("unknown frame kind " + code);
    }
  }

  /** A frame's header as read: IllegalArgumentException for another format version or an unknown kind. */
  public record Header(Kind kind, long id, int length) {
    static Header decode(Buffer header) {
      WireFormat.check(header.getByte(0));
      Kind kind = Kind.of(header.getByte(1));
      int length = header.getInt(10);
      if (length < 0) {
        throw new IllegalArgumentException("frame of " + length + " bytes");
      }
      return new Header(kind, header.getLong(2), length);
    }
  }

  public static Buffer header(Kind kind, long id, int payloadLength) {
    return appendHeader(Buffer.buffer(HEADER_BYTES), kind, id, payloadLength);
  }

  /** A frame's header appended to {@code out}, for frames written one after the other into one buffer. */
  public static Buffer appendHeader(Buffer out, Kind kind, long id, int payloadLength) {
    return out.appendByte(WireFormat.VERSION).appendByte(kind.code).appendLong(id).appendInt(payloadLength);
  }

  /** The frame as one buffer. */
  public static Buffer encode(Kind kind, long id, Buffer payload) {
    return header(kind, id, payload.length()).appendBuffer(payload);
  }

  /** The frame as its header followed by the payload's parts, each as it is (a large value wrapped, not copied). */
  public static List<Buffer> encode(Kind kind, long id, List<Buffer> payload) {
    List<Buffer> parts = new ArrayList<>(payload.size() + 1);
    parts.add(header(kind, id, payload.stream().mapToInt(Buffer::length).sum()));
    parts.addAll(payload);
    return parts;
  }

  public static void write(WriteStream<Buffer> out, Kind kind, long id, List<Buffer> payload) {
    encode(kind, id, payload).forEach(out::write);
  }

  /**
   * A body that is exactly one frame of {@code expected} kind; IllegalArgumentException when it is of
   * another format version or kind, or cut short, or followed by more bytes.
   */
  public static Frame decode(Buffer body, Kind expected) {
    if (body.length() == 0) {
      throw new IllegalArgumentException("empty body, expected a frame");
    }
    WireFormat.check(body.getByte(0));
    if (body.length() < HEADER_BYTES) {
      throw new IllegalArgumentException("frame ends early at byte " + body.length());
    }
    Header header = Header.decode(body.getBuffer(0, HEADER_BYTES));
    if (header.kind() != expected) {
      throw new IllegalArgumentException("frame of kind " + header.kind() + ", expected " + expected);
    }
    if (header.length() != body.length() - HEADER_BYTES) {
      throw new IllegalArgumentException("frame of " + header.length() + " bytes in a body of "
          + (body.length() - HEADER_BYTES) + " after the header");
    }
    return new Frame(header.kind(), header.id(), body.slice(HEADER_BYTES, body.length()));
  }
}
