package io.quorumkv.backup;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;

/**
 * What a node backup holds, written as {@code manifest.json} beside its RocksDB checkpoint once the
 * checkpoint is complete: the node and its topology at the time, the clock's high-water mark, the
 * counts, and each file of the checkpoint with its size and CRC32C, so a restore can tell a
 * complete backup from a damaged one before it writes anything.
 *
 * @param clockHighWater the node's clock after the checkpoint: above every version the backup holds
 * @param maxVersion     the highest version among the backup's records (0 for none)
 * @param dataBytes      key and value bytes of every record
 */
public record BackupManifest(int formatVersion, String name, String node, long createdAtMillis, JsonObject topology,
                             long clockHighWater, long maxVersion, long records, long live, long tombstones,
                             long dataBytes, long diskBytes, long tookMs, List<BackupFile> files) {
  public static final String FORMAT = "quorumkv-backup";
  public static final int FORMAT_VERSION = 1;
  public static final String FILE_NAME = "manifest.json";

  /** One file of the checkpoint, under the backup's {@code rocksdb} directory. */
  public record BackupFile(String name, long bytes, long crc32c) {
    JsonObject toJson() {
      return new JsonObject().put("name", name).put("bytes", bytes).put("crc32c", Long.toHexString(crc32c));
    }

    static BackupFile fromJson(JsonObject json) {
      String name = json.getString("name");
      if (name == null || name.isEmpty() || name.contains("/") || name.contains("\\") || name.startsWith(".")) {
        throw new IllegalArgumentException("a file entry names no plain file: " + name);
      }
      return new BackupFile(name, json.getLong("bytes"), Long.parseLong(json.getString("crc32c"), 16));
    }
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("format", FORMAT)
        .put("formatVersion", formatVersion)
        .put("name", name)
        .put("node", node)
        .put("createdAt", Instant.ofEpochMilli(createdAtMillis).toString())
        .put("createdAtMillis", createdAtMillis)
        .put("topology", topology)
        .put("clockHighWater", clockHighWater)
        .put("maxVersion", maxVersion)
        .put("records", records)
        .put("live", live)
        .put("tombstones", tombstones)
        .put("dataBytes", dataBytes)
        .put("diskBytes", diskBytes)
        .put("tookMs", tookMs)
        .put("files", new JsonArray(files.stream().map(BackupFile::toJson).toList()));
  }

  /** The manifest of this text; a {@link BackupException} when it is not one this version can read. */
  public static BackupManifest parse(String text, String where) {
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      throw new BackupException("not a quorumkv backup: " + where + " is not JSON");
    }
    if (!FORMAT.equals(json.getValue("format"))) {
      throw new BackupException("not a quorumkv backup: " + where + " has no \"format\": \"" + FORMAT + "\"");
    }
    Object version = json.getValue("formatVersion");
    if (!(version instanceof Number number) || number.intValue() != FORMAT_VERSION) {
      throw new BackupException(where + " is of backup format " + version + "; this version reads format "
          + FORMAT_VERSION);
    }
    try {
      List<BackupFile> files = json.getJsonArray("files").stream()
          .map(entry -> BackupFile.fromJson((JsonObject) entry)).toList();
      return new BackupManifest(FORMAT_VERSION, NodeBackups.checkName(json.getString("name")),
          required(json.getString("node")),
          json.getLong("createdAtMillis"), json.getJsonObject("topology"), json.getLong("clockHighWater"),
          json.getLong("maxVersion"), json.getLong("records"), json.getLong("live"), json.getLong("tombstones"),
          json.getLong("dataBytes"), json.getLong("diskBytes"), json.getLong("tookMs"), files);
    } catch (RuntimeException e) {
      throw new BackupException("corrupt backup: " + where + " lacks a field or has one of the wrong type ("
          + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
    }
  }

  private static <T> T required(T value) {
    if (value == null) {
      throw new IllegalArgumentException("missing");
    }
    return value;
  }
}
