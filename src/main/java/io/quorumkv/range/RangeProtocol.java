package io.quorumkv.range;

import io.quorumkv.storage.RangeEntry;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.RecordLayout;
import io.quorumkv.wire.WireReader;
import io.vertx.core.buffer.Buffer;

import java.util.List;

/**
 * The internal range stream a node answers for the cluster-wide range:
 * {@code GET /internal/v0/range?start=S[&end=E]} gives every record this node stores in
 * {@code [S, E)}, tombstones and expired ones included, sorted by key, as a sequence of
 * {@link Frame}s: one {@link Frame.Kind#RECORD} frame per record (its key and record in
 * {@link RecordLayout}'s entry layout), then an explicit {@link Frame.Kind#END} frame carrying the
 * count of records sent (a long), so a stream cut short (a node killed, a scan failing, a
 * connection reset) is never mistaken for a shorter range. The transfer stream of a topology
 * change has the same frames.
 */
public final class RangeProtocol {
  private static final int END_BYTES = 8;

  private RangeProtocol() {
  }

  /** The frames of one batch of records, as one buffer. */
  public static Buffer encodeRecords(List<RangeEntry> entries) {
    int size = 0;
    for (RangeEntry entry : entries) {
      size += Frame.HEADER_BYTES + payloadSize(entry);
    }
    Buffer out = Buffer.buffer(size);
    for (RangeEntry entry : entries) {
      RecordLayout.appendEntry(Frame.appendHeader(out, Frame.Kind.RECORD, 0, payloadSize(entry)), entry.key(),
          entry.record());
    }
    return out;
  }

  /** The end frame, after {@code records} record frames. */
  public static Buffer encodeEnd(long records) {
    return Frame.encode(Frame.Kind.END, 0, Buffer.buffer(END_BYTES).appendLong(records));
  }

  private static int payloadSize(RangeEntry entry) {
    return RecordLayout.sizeOf(entry.key()) + RecordLayout.sizeOf(entry.record());
  }

  /** A record frame's payload; IllegalArgumentException when malformed. */
  public static RangeEntry decodeRecord(Buffer payload) {
    WireReader in = new WireReader(payload);
    RangeEntry entry = new RangeEntry(RecordLayout.readKey(in), RecordLayout.readRecord(in));
    in.end();
    return entry;
  }

  /** An end frame's payload: how many records the sender sent; IllegalArgumentException when malformed. */
  public static long decodeEnd(Buffer payload) {
    WireReader in = new WireReader(payload);
    long sent = in.readLong();
    in.end();
    return sent;
  }
}
