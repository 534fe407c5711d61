package io.quorumkv.support;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.range.RangeProtocol;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Every record one node holds in a key range, tombstones included, each with the replica count it
 * was written with, read from the node's internal range stream ({@link RangeProtocol}): where
 * {@link ReplicaCopy} asks for one key, this reads a node's whole share of a test's keys at once.
 */
public final class NodeRecords {
  /** One stored record; {@code replicas} is the record's own count ({@code from} of its widest write). */
  public record Held(long version, boolean tombstone, int replicas, String value) {
  }

  private static final byte RECORD = 1;
  private static final byte END = 2;

  private NodeRecords() {
  }

  /** The node's records with {@code start <= key < end}, by key. */
  public static Map<String, Held> scan(Http node, String start, String end) {
    HttpResponse<byte[]> response = node.get(InternalEndpoint.RANGE.path() + "?start=" + Http.encode(start) + "&end=" + Http.encode(end));
    if (response.statusCode() != 200) {
      throw new AssertionError("internal range answered " + response.statusCode() + ": " + Http.text(response));
    }
    ByteBuffer frames = ByteBuffer.wrap(response.body());
    Map<String, Held> records = new HashMap<>();
    while (frames.hasRemaining()) {
      byte kind = frames.get();
      int length = frames.getInt();
      if (kind == END) {
        long sent = frames.getLong();
        if (sent != records.size() || frames.hasRemaining()) {
          throw new AssertionError("internal range: end frame says " + sent + " records, " + records.size() + " read");
        }
        return records;
      }
      if (kind != RECORD) {
        throw new AssertionError("internal range: frame of kind " + kind);
      }
      int payloadEnd = frames.position() + length;
      String key = string(frames, frames.getInt());
      long version = frames.getLong();
      boolean tombstone = frames.get() != 0;
      frames.getLong(); // expires at: this test's keys never expire
      int replicas = Short.toUnsignedInt(frames.getShort());
      String value = string(frames, frames.getInt());
      if (frames.position() != payloadEnd) {
        throw new AssertionError("internal range: record frame of " + length + " bytes read as " + (frames.position()
            - payloadEnd + length));
      }
      records.put(key, new Held(version, tombstone, replicas, value));
    }
    throw new AssertionError("internal range ended without its end frame after " + records.size() + " records");
  }

  private static String string(ByteBuffer buffer, int length) {
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
