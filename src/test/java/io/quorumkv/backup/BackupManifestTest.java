package io.quorumkv.backup;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a restore makes of manifests that are not what they should be. */
class BackupManifestTest {
  private static final BackupManifest MANIFEST = new BackupManifest(BackupManifest.FORMAT_VERSION, "b", "http://n:1",
      1_000, new JsonObject().put("epoch", 1), 5, 4, 3, 2, 1, 100, 200, 7,
      List.of(new BackupManifest.BackupFile("000001.sst", 10, 0xabcdef)));

  @Test
  void aManifestReadsBackAsWritten() {
    assertEquals(MANIFEST, BackupManifest.parse(MANIFEST.toJson().encode(), "m"));
  }

  @Test
  void foreignDamagedOrNewerManifestsAreRefusedInOneLine() {
    assertRefused("not a quorumkv backup: m is not JSON", "{oops");
    assertRefused("has no \"format\"", new JsonObject().put("hello", 1).encode());
    assertRefused("is of backup format 2; this version reads format 1",
        MANIFEST.toJson().put("formatVersion", 2).encode());
    JsonObject missing = MANIFEST.toJson();
    missing.remove("records");
    assertRefused("corrupt backup: m lacks a field", missing.encode());
    JsonObject escaping = MANIFEST.toJson();
    escaping.getJsonArray("files").getJsonObject(0).put("name", "../../etc/passwd");
    assertRefused("corrupt backup", escaping.encode());
  }

  @Test
  void aDirectoryWithoutBackupsIsNoBackup(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("readme.txt"), "not a backup");
    BackupException refused = assertThrows(BackupException.class, () -> NodeBackup.under(dir));
    assertTrue(refused.getMessage().contains("holds no manifest.json"), refused.getMessage());
    BackupException missing = assertThrows(BackupException.class, () -> NodeBackup.under(dir.resolve("nope")));
    assertTrue(missing.getMessage().contains("not a directory"), missing.getMessage());
  }

  @Test
  void aMissingFileIsFoundBeforeAnythingIsRead(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve(BackupManifest.FILE_NAME), MANIFEST.toJson().encode());
    Files.createDirectories(dir.resolve("rocksdb"));
    BackupException refused = assertThrows(BackupException.class, () -> NodeBackup.at(dir).verify());
    assertTrue(refused.getMessage().contains("000001.sst is missing"), refused.getMessage());
  }

  private static void assertRefused(String message, String text) {
    BackupException refused = assertThrows(BackupException.class, () -> BackupManifest.parse(text, "m"));
    assertTrue(refused.getMessage().contains(message), refused.getMessage());
    assertEquals(1, refused.getMessage().lines().count());
  }
}
