package io.quorumkv.wire;

import io.vertx.core.buffer.Buffer;

/** Reads a payload front to back, refusing (IllegalArgumentException) to read past its end. */
public final class WireReader {
  private final Buffer in;
  private int position;

  public WireReader(Buffer in) {
    this.in = in;
  }

  public boolean hasMore() {
    return position < in.length();
  }

  public byte readByte() {
    need(1);
    return in.getByte(position++);
  }

  public long readLong() {
    need(8);
    long value = in.getLong(position);
    position += 8;
    return value;
  }

  int readUnsignedShort() {
    need(2);
    int value = in.getUnsignedShort(position);
    position += 2;
    return value;
  }

  int readInt() {
    need(4);
    int value = in.getInt(position);
    position += 4;
    return value;
  }

  /** A length (int) and that many bytes. */
  public byte[] readBytes() {
    need(4);
    int length = in.getInt(position);
    position += 4;
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " at byte " + (position - 4));
    }
    need(length);
    byte[] bytes = in.getBytes(position, position + length);
    position += length;
    return bytes;
  }

  int position() {
    return position;
  }

  /** IllegalArgumentException when bytes are left after what was read. */
  public void end() {
    if (hasMore()) {
      throw new IllegalArgumentException((in.length() - position) + " bytes left after byte " + position);
    }
  }

  private void need(int bytes) {
    if (in.length() - position < bytes) {
      throw new IllegalArgumentException("payload ends early at byte " + position);
    }
  }
}
