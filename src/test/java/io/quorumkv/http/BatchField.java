package io.quorumkv.http;

import io.quorumkv.wire.Frame;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the fields of a batch request body (one {@link Frame} of {@code BatchOperations}) are, so the
 * mutator can change one: the frame's payload length and, in the payload, operation kind (1 byte),
 * key and value lengths (int), version and expiry (long), tombstone (1 byte), replica count
 * (unsigned short). Reads the body as far as it is well-formed.
 */
record BatchField(Kind kind, int at) {
  enum Kind { OPERATION, LENGTH, VERSION, TOMBSTONE, EXPIRES_AT, REPLICAS }

  private static final byte WRITE = 2;

  static List<BatchField> of(byte[] body) {
    List<BatchField> fields = new ArrayList<>();
    if (body.length < Frame.HEADER_BYTES) {
      return fields;
    }
    fields.add(new BatchField(Kind.LENGTH, Frame.HEADER_BYTES - 4));
    ByteBuffer in = ByteBuffer.wrap(body).position(Frame.HEADER_BYTES);
    while (in.remaining() >= 5) {
      fields.add(new BatchField(Kind.OPERATION, in.position()));
      byte operation = in.get();
      if (!skipBytes(in, fields)) {
        break;
      }
      if (operation == WRITE) {
        if (in.remaining() < 8 + 1 + 8 + 2) {
          break;
        }
        fields.add(new BatchField(Kind.VERSION, in.position()));
        fields.add(new BatchField(Kind.TOMBSTONE, in.position() + 8));
        fields.add(new BatchField(Kind.EXPIRES_AT, in.position() + 9));
        fields.add(new BatchField(Kind.REPLICAS, in.position() + 17));
        in.position(in.position() + 19);
        if (in.remaining() < 4 || !skipBytes(in, fields)) {
          break;
        }
      }
    }
    return fields;
  }

  /** Notes a length field and skips it and its bytes; false when they run past the end. */
  private static boolean skipBytes(ByteBuffer in, List<BatchField> fields) {
    fields.add(new BatchField(Kind.LENGTH, in.position()));
    int length = in.getInt();
    if (length < 0 || length > in.remaining()) {
      return false;
    }
    in.position(in.position() + length);
    return true;
  }
}
