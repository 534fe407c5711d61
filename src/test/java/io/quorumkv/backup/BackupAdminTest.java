package io.quorumkv.backup;

import io.quorumkv.storage.Record;
import io.quorumkv.support.Http;
import io.quorumkv.support.RawHttp;
import io.quorumkv.support.TestNode;
import io.quorumkv.wire.BatchOperations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /admin/backup} and {@code /admin/restore} on a real node: the token, bad input, counts, retention. */
class BackupAdminTest {
  private static final String TOKEN = "backup-admin-token";
  private static final String[] AUTH = {"Authorization", "Bearer " + TOKEN};
  private static final int RETAIN = 2;

  @TempDir
  static Path dataDir;
  @TempDir
  static Path backupDir;
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    // Small memtables, so that the writes after a backup flush and compact the files it shares.
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("adminToken", TOKEN)
        .put("storage", new JsonObject().put("writeBufferBytes", 1 << 20))
        .put("backup", new JsonObject().put("dir", backupDir.toString()).put("retain", RETAIN))), InstantSource.system());
    http = node.http;
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void everyBackupAndRestoreEndpointNeedsTheToken() {
    for (String[] request : new String[][] {{"POST", "/admin/backup?name=sneaky"}, {"GET", "/admin/backup"},
        {"DELETE", "/admin/backup?name=sneaky"}, {"GET", RestoreProtocol.PATH}, {"POST", RestoreProtocol.PATH},
        {"GET", RestoreProtocol.KEYS_PATH + "?start=a"}}) {
      HttpResponse<byte[]> none = http.send(request[0], request[1], HttpRequest.BodyPublishers.noBody());
      assertEquals(401, none.statusCode(), request[0] + " " + request[1]);
      HttpResponse<byte[]> wrong = http.send(request[0], request[1], HttpRequest.BodyPublishers.noBody(),
          "Authorization", "Bearer nope");
      assertEquals(401, wrong.statusCode(), request[0] + " " + request[1]);
    }
    assertFalse(Files.exists(backupDir.resolve("sneaky")), "a refused backup took nothing");
  }

  @Test
  void aBackupCountsWhatTheNodeHoldsInTheConfiguredDirectory() throws Exception {
    for (int i = 0; i < 10; i++) {
      assertEquals(201, http.put("/v0/entity?id=count-" + i, "value-" + i).statusCode());
    }
    assertEquals(202, http.delete("/v0/entity?id=count-3").statusCode());
    HttpResponse<byte[]> taken = admin("POST", "/admin/backup?name=counted");
    assertEquals(201, taken.statusCode(), Http.text(taken));
    JsonObject manifest = new JsonObject(Http.text(taken));
    assertTrue(manifest.getLong("records") >= 10, manifest.encodePrettily());
    assertTrue(manifest.getLong("tombstones") >= 1, manifest.encodePrettily());
    assertEquals(manifest.getLong("records"), manifest.getLong("live") + manifest.getLong("tombstones"));
    assertTrue(manifest.getLong("clockHighWater") >= manifest.getLong("maxVersion"), manifest.encodePrettily());
    assertTrue(Files.exists(backupDir.resolve("counted").resolve(BackupManifest.FILE_NAME)));
    NodeBackup.at(backupDir.resolve("counted")).verify();
    // The live store goes on writing, flushing and compacting: the backup's files stay as they were.
    for (int i = 0; i < 2_000; i++) {
      assertEquals(201, http.put("/v0/entity?id=after-" + i, "x".repeat(1_000)).statusCode());
    }
    NodeBackup.at(backupDir.resolve("counted")).verify();

    assertEquals(409, admin("POST", "/admin/backup?name=counted").statusCode());
    admin("DELETE", "/admin/backup?name=counted");
  }

  @Test
  void retentionKeepsTheNewestBackups() {
    for (String name : List.of("keep-1", "keep-2", "keep-3")) {
      assertEquals(201, admin("POST", "/admin/backup?name=" + name).statusCode());
    }
    JsonArray listed = new JsonArray(Http.text(admin("GET", "/admin/backup")));
    List<String> names = listed.stream().map(entry -> ((JsonObject) entry).getString("name")).toList();
    assertEquals(List.of("keep-2", "keep-3"), names.stream().filter(name -> name.startsWith("keep-")).toList());
    assertFalse(Files.exists(backupDir.resolve("keep-1")), "the oldest backup's directory is gone");
    assertEquals(204, admin("DELETE", "/admin/backup?name=keep-2").statusCode());
    assertEquals(404, admin("DELETE", "/admin/backup?name=keep-2").statusCode());
    admin("DELETE", "/admin/backup?name=keep-3");
  }

  @Test
  void aBackupThatACrashCutShortIsTakenAgainOrDeletedByTheNext() throws IOException {
    for (String name : List.of("cut-short", "cut-short-other")) {
      Path leftover = Files.createDirectories(backupDir.resolve(name).resolve("rocksdb"));
      Files.writeString(backupDir.resolve(name).resolve("in-progress"), "");
      Files.writeString(leftover.resolve("000001.sst"), "half a file");
    }
    assertFalse(Http.text(admin("GET", "/admin/backup")).contains("cut-short"), "a leftover is no backup");
    HttpResponse<byte[]> again = admin("POST", "/admin/backup?name=cut-short");
    assertEquals(201, again.statusCode(), Http.text(again));
    NodeBackup.at(backupDir.resolve("cut-short")).verify();
    assertFalse(Files.exists(backupDir.resolve("cut-short-other")), "the next backup deleted the other leftover");
    admin("DELETE", "/admin/backup?name=cut-short");
  }

  @Test
  void badInputGetsAClearError() throws IOException {
    assertError(400, "a backup name is", admin("POST", "/admin/backup?name=../escape"));
    assertError(400, "scope must be", admin("POST", "/admin/backup?scope=galaxy"));
    assertError(400, "a backup name is", admin("DELETE", "/admin/backup"));
    assertError(404, "no backup named", admin("DELETE", "/admin/backup?name=never-taken"));
    for (String method : List.of("POST", "DELETE")) {
      RawHttp.Response malformed = RawHttp.exchange(URI.create(http.base()).getPort(), method
          + " /admin/backup?name=%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
          + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      assertEquals(400, malformed.status(), method + ": " + malformed.bodyText());
      assertTrue(malformed.bodyText().contains("malformed query string"), malformed.bodyText());
    }
    HttpResponse<byte[]> put = http.send("PUT", "/admin/backup", HttpRequest.BodyPublishers.noBody(), AUTH);
    assertEquals(405, put.statusCode());
    assertEquals("GET, POST, DELETE", put.headers().firstValue("Allow").orElse(""));
    assertError(400, "versions must be keep or fresh", http.send("POST", RestoreProtocol.PATH + "?versions=old",
        HttpRequest.BodyPublishers.noBody(), AUTH));
    assertError(400, "", http.send("POST", RestoreProtocol.PATH, HttpRequest.BodyPublishers.ofString("garbage"), AUTH));
    byte[] read = BatchOperations.encode(List.of(new BatchOperations.Operation(
        "k".getBytes(StandardCharsets.UTF_8), null))).getBytes();
    assertError(400, "writes only", http.send("POST", RestoreProtocol.PATH,
        HttpRequest.BodyPublishers.ofByteArray(read), AUTH));
  }

  @Test
  void aRestoreBatchKeepsVersionsAndSaysWhatWasNewer() {
    assertEquals(201, http.put("/v0/entity?id=batch-newer", "current").statusCode());
    long old = 1L << 40;
    byte[] body = BatchOperations.encode(List.of(
        new BatchOperations.Operation("batch-new".getBytes(StandardCharsets.UTF_8),
            Record.live(old, "restored".getBytes(StandardCharsets.UTF_8), Record.NEVER, 1)),
        new BatchOperations.Operation("batch-newer".getBytes(StandardCharsets.UTF_8),
            Record.live(old, "stale".getBytes(StandardCharsets.UTF_8), Record.NEVER, 1)))).getBytes();
    HttpResponse<byte[]> answer = http.send("POST", RestoreProtocol.PATH, HttpRequest.BodyPublishers.ofByteArray(body),
        AUTH);
    assertEquals(200, answer.statusCode(), Http.text(answer));
    JsonObject outcome = new JsonObject(Http.text(answer));
    assertEquals(1, outcome.getLong("stored"), outcome.encode());
    assertEquals(1, outcome.getLong("newer"), outcome.encode());
    assertEquals(0, outcome.getLong("failed"), outcome.encode());
    HttpResponse<byte[]> restored = http.get("/v0/entity?id=batch-new");
    assertEquals("restored", Http.text(restored));
    assertEquals(Long.toString(old), restored.headers().firstValue("X-QKV-Version").orElseThrow());
    assertEquals("current", Http.text(http.get("/v0/entity?id=batch-newer")));
  }

  private static HttpResponse<byte[]> admin(String method, String path) {
    return http.send(method, path, HttpRequest.BodyPublishers.noBody(), AUTH);
  }

  private static void assertError(int status, String text, HttpResponse<byte[]> response) {
    assertEquals(status, response.statusCode(), Http.text(response));
    assertTrue(Http.text(response).contains(text), Http.text(response));
  }
}
