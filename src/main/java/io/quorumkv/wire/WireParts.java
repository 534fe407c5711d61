package io.quorumkv.wire;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

import java.util.ArrayList;
import java.util.List;

/**
 * A payload built as parts to be sent one after the other: small fields are appended to the
 * current part, and a value of {@link RecordLayout#WRAPPED_VALUE_BYTES} or more is wrapped as it
 * is instead of copied, so that a large value sent to several nodes takes no more heap than it
 * already did. Used by one thread.
 */
public final class WireParts {
  private final List<Buffer> parts = new ArrayList<>();
  private Buffer current = Buffer.buffer();

  /** The part small fields are appended to now. */
  public Buffer current() {
    return current;
  }

  void wrap(byte[] value) {
    parts.add(current);
    parts.add(BufferInternal.buffer(Unpooled.wrappedBuffer(value)));
    current = Buffer.buffer();
  }

  /** The parts; call once, when everything is appended. */
  public List<Buffer> finish() {
    if (current.length() > 0 || parts.isEmpty()) {
      parts.add(current);
    }
    return parts;
  }

  /** The parts as one buffer: the only part itself, or a copy of them all. */
  public static Buffer join(List<Buffer> parts) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    Buffer out = Buffer.buffer(parts.stream().mapToInt(Buffer::length).sum());
    parts.forEach(out::appendBuffer);
    return out;
  }
}
