package io.quorumkv.backup;

import io.quorumkv.support.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The restore tool checks its url before it opens a backup: a server that is no quorumkv node, a
 * token the node refuses and no node at all are each said in one line, though the backup named does
 * not even exist (which the tool would have said first had it read the backups first).
 */
class RestoreTargetTest {
  @TempDir
  Path dir;

  @Test
  void aServerThatIsNoQuorumkvNodeIsSaidBeforeAnyBackupIsRead() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      int port = vertx.createHttpServer().requestHandler(request -> request.response().setStatusCode(404)
              .putHeader("Content-Type", "text/html").end("<html><body>Not Found</body></html>"))
          .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
      assertEquals("http://127.0.0.1:" + port + " is not a quorumkv node this tool can restore into: GET /admin/restore"
          + " answered 404 not found", failure("http://127.0.0.1:" + port, null));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aTokenTheNodeRefusesIsSaidBeforeAnyBackupIsRead() {
    try (TestNode node = TestNode.start(TestNode.config(dir.resolve("node"), new JsonObject().put("auth",
        new JsonObject().put("tokens", new JsonArray().add(new JsonObject().put("name", "w").put("role", "write")
            .put("token", "writer"))))), InstantSource.system())) {
      String url = "http://127.0.0.1:" + node.port();
      assertEquals(url + " refused the restore: 401 unknown token", failure(url, "not-a-token"));
      assertEquals(url + " refused the restore: 403 token 'w' has role write; this request needs admin", failure(url, "writer"));
    }
  }

  @Test
  void noNodeIsAConnectionRefused() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    assertEquals("no node at http://127.0.0.1:" + port + " (connection refused)",
        failure("http://127.0.0.1:" + port, null));
  }

  /** The one line a restore from a backup that does not exist stops with. */
  private String failure(String url, String token) {
    Path missing = dir.resolve("no-backup-here");
    assertFalse(Files.exists(missing));
    RestoreOptions options = RestoreOptions.parse(List.of("--from", missing.toString(), "--url", url,
        "--progress", dir.resolve("progress.json").toString()), token);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BackupException failure = assertThrows(BackupException.class,
        () -> new RestoreCommand(options, new PrintStream(out, true, StandardCharsets.UTF_8)).run());
    assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing said before the failure");
    return failure.getMessage();
  }
}
