package io.quorumkv.support;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.range.RangeProtocol;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.Record;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.buffer.Buffer;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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

  private NodeRecords() {
  }

  /** The node's records with {@code start <= key < end}, by key. */
  public static Map<String, Held> scan(Http node, String start, String end) {
    HttpResponse<byte[]> response = node.get(InternalEndpoint.RANGE.path() + "?start=" + Http.encode(start) + "&end=" + Http.encode(end));
    if (response.statusCode() != 200) {
      throw new AssertionError("internal range answered " + response.statusCode() + ": " + Http.text(response));
    }
    List<Frame> frames = new ArrayList<>();
    FrameReader.of(Integer.MAX_VALUE, frames::add, malformed -> {
      throw new AssertionError("internal range: " + malformed);
    }).handle(Buffer.buffer(response.body()));
    Map<String, Held> records = new HashMap<>();
    for (Frame frame : frames) {
      if (frame.kind() == Frame.Kind.END) {
        long sent = RangeProtocol.decodeEnd(frame.payload());
        if (sent != records.size() || frame != frames.get(frames.size() - 1)) {
          throw new AssertionError("internal range: end frame says " + sent + " records, " + records.size() + " read");
        }
        return records;
      }
      if (frame.kind() != Frame.Kind.RECORD) {
        throw new AssertionError("internal range: frame of kind " + frame.kind());
      }
      RangeEntry entry = RangeProtocol.decodeRecord(frame.payload());
      Record record = entry.record();
      records.put(string(entry.key()), new Held(record.version(), record.tombstone(), record.replicas(),
          string(record.value())));
    }
    throw new AssertionError("internal range ended without its end frame after " + records.size() + " records");
  }

  private static String string(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
