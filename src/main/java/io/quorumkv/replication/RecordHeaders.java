package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.quorumkv.web.ApiHeaders;
import io.vertx.core.MultiMap;

/**
 * A record's metadata as headers, for {@code /internal/v0/record}: its version in
 * {@link ApiHeaders#VERSION} (as on client answers), whether it is a tombstone, its expiry and
 * its replica count; the value travels as the body.
 */
public final class RecordHeaders {
  public static final String TOMBSTONE = "X-QKV-Tombstone";
  public static final String EXPIRES_AT = "X-QKV-Expires-At";
  /** How many replicas the record was written to, 1 to {@link Record#EVERY_NODE} (which means every node). */
  public static final String REPLICAS = "X-QKV-Replicas";

  private RecordHeaders() {
  }

  public static void write(Record record, MultiMap headers) {
    headers.set(ApiHeaders.VERSION, Long.toString(record.version()))
        .set(TOMBSTONE, record.tombstone() ? "1" : "0")
        .set(EXPIRES_AT, Long.toString(record.expiresAt()))
        .set(REPLICAS, Integer.toString(record.replicas()));
  }

  /** The record described by the headers and body; IllegalArgumentException when a header is missing or malformed. */
  public static Record read(MultiMap headers, byte[] value) {
    long version = parseLong(headers, ApiHeaders.VERSION);
    boolean tombstone = "1".equals(headers.get(TOMBSTONE));
    long expiresAt = parseLong(headers, EXPIRES_AT);
    long count = parseLong(headers, REPLICAS);
    if (count < 1 || count > Record.EVERY_NODE) {
      throw new IllegalArgumentException("bad header " + REPLICAS + ": " + count + " (1 to " + Record.EVERY_NODE + ")");
    }
    int replicas = (int) count;
    return tombstone ? Record.tombstone(version, replicas) : Record.live(version, value, expiresAt, replicas);
  }

  private static long parseLong(MultiMap headers, String name) {
    String text = headers.get(name);
    if (text == null) {
      throw new IllegalArgumentException("missing header " + name);
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad header " + name + ": " + text);
    }
  }
}
