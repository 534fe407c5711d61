package io.quorumkv.replication;

import io.quorumkv.storage.Record;
import io.vertx.core.MultiMap;

/**
 * Coordinator-to-replica requests: {@code GET} and {@code PUT} of one record at {@link #RECORD_PATH},
 * never re-coordinated. The record's metadata travels in headers, its value as the body;
 * the cluster secret, when the conf sets one, in {@link #SECRET}.
 */
public final class InternalProtocol {
  public static final String RECORD_PATH = "/internal/v0/record";
  /** {@code POST} of many reads and writes in one body, see {@link RecordBatchCodec}: what coordinators use. */
  public static final String BATCH_PATH = "/internal/v0/records";
  public static final String VERSION = "X-QKV-Version";
  public static final String TOMBSTONE = "X-QKV-Tombstone";
  public static final String EXPIRES_AT = "X-QKV-Expires-At";
  public static final String SECRET = "X-QKV-Cluster-Secret";

  private InternalProtocol() {
  }

  public static void writeHeaders(Record record, MultiMap headers) {
    headers.set(VERSION, Long.toString(record.version()))
        .set(TOMBSTONE, record.tombstone() ? "1" : "0")
        .set(EXPIRES_AT, Long.toString(record.expiresAt()));
  }

  /** The record described by the headers and body; IllegalArgumentException when a header is missing or malformed. */
  public static Record readRecord(MultiMap headers, byte[] value) {
    long version = parseLong(headers, VERSION);
    boolean tombstone = "1".equals(headers.get(TOMBSTONE));
    long expiresAt = parseLong(headers, EXPIRES_AT);
    return tombstone ? Record.tombstone(version) : Record.live(version, value, expiresAt);
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
