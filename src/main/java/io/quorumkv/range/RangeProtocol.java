package io.quorumkv.range;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.vertx.core.buffer.Buffer;

import java.util.List;

/**
 * The internal range stream a node answers for the cluster-wide range:
 * {@code GET /internal/v0/range?start=S[&end=E]} gives every record this node stores in
 * {@code [S, E)}, tombstones and expired ones included, sorted by key, as a sequence of frames.
 * The last frame is an explicit end carrying the count of records sent, so a stream cut short
 * (a node killed, a scan failing, a connection reset) is never mistaken for a shorter range.
 * Integers are big-endian.
 * <pre>
 * frame:  kind (1 record, 2 end) | payload length (int) | payload
 * record: key length (int) | key | version (long) | tombstone (byte 0/1) | expires at (long)
 *         | replicas (unsigned short) | value length (int) | value
 * end:    records sent (long)
 * </pre>
 */
public final class RangeProtocol {
  static final int HEADER_BYTES = 1 + 4;
  static final byte RECORD = 1;
  static final byte END = 2;
  private static final int RECORD_FIXED_BYTES = 4 + 8 + 1 + 8 + 2 + 4;
  private static final int END_BYTES = 8;

  private RangeProtocol() {
  }

  /** The frames of one batch of records, as one buffer. */
  public static Buffer encodeRecords(List<RangeEntry> entries) {
    int size = 0;
    for (RangeEntry entry : entries) {
      size += HEADER_BYTES + payloadSize(entry);
    }
    Buffer out = Buffer.buffer(size);
    for (RangeEntry entry : entries) {
      Record record = entry.record();
      out.appendByte(RECORD).appendInt(payloadSize(entry))
          .appendInt(entry.key().length).appendBytes(entry.key())
          .appendLong(record.version()).appendByte(record.tombstone() ? (byte) 1 : 0).appendLong(record.expiresAt())
          .appendUnsignedShort(record.replicas()).appendInt(record.value().length).appendBytes(record.value());
    }
    return out;
  }

  /** The end frame, after {@code records} record frames. */
  public static Buffer encodeEnd(long records) {
    return Buffer.buffer(HEADER_BYTES + END_BYTES).appendByte(END).appendInt(END_BYTES).appendLong(records);
  }

  private static int payloadSize(RangeEntry entry) {
    return RECORD_FIXED_BYTES + entry.key().length + entry.record().value().length;
  }

  /** A frame header: its kind and payload length; IllegalArgumentException when malformed. */
  record Header(byte kind, int length) {
    static Header decode(Buffer header, int maxPayloadBytes) {
      byte kind = header.getByte(0);
      int length = header.getInt(1);
      if (kind == RECORD && (length < RECORD_FIXED_BYTES || length > maxPayloadBytes)) {
        throw new IllegalArgumentException("record frame of " + length + " bytes");
      }
      if (kind == END && length != END_BYTES) {
        throw new IllegalArgumentException("end frame of " + length + " bytes");
      }
      if (kind != RECORD && kind != END) {
        throw new IllegalArgumentException("unknown frame kind " + kind);
      }
      return new Header(kind, length);
    }
  }

  /** A record frame's payload; IllegalArgumentException when malformed. */
  static RangeEntry decodeRecord(Buffer payload) {
    int keyLength = payload.getInt(0);
    if (keyLength < 0 || keyLength > payload.length() - RECORD_FIXED_BYTES) {
      throw new IllegalArgumentException("key of " + keyLength + " bytes in a record frame of " + payload.length());
    }
    int at = 4;
    byte[] key = payload.getBytes(at, at + keyLength);
    at += keyLength;
    long version = payload.getLong(at);
    boolean tombstone = payload.getByte(at + 8) != 0;
    long expiresAt = payload.getLong(at + 9);
    int replicas = payload.getUnsignedShort(at + 17);
    int valueLength = payload.getInt(at + 19);
    at += 23;
    if (valueLength != payload.length() - at) {
      throw new IllegalArgumentException("value of " + valueLength + " bytes where " + (payload.length() - at) + " remain");
    }
    if (replicas == 0) {
      throw new IllegalArgumentException("record with 0 replicas");
    }
    Record record = tombstone
        ? Record.tombstone(version, replicas)
        : Record.live(version, payload.getBytes(at, at + valueLength), expiresAt, replicas);
    return new RangeEntry(key, record);
  }

  /** An end frame's payload: how many records the sender sent. */
  static long decodeEnd(Buffer payload) {
    return payload.getLong(0);
  }
}
