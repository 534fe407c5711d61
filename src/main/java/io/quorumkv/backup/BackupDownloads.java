package io.quorumkv.backup;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.web.ApiErrors;
import io.quorumkv.web.QueryParams;
import io.quorumkv.web.RouteMount;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A complete backup's files over HTTP, for a copy off the machine (docs/api.md#backup-and-restore):
 * {@code GET /admin/backup/files?name=N} lists them with sizes and SHA-256 ({@link BackupFiles}),
 * {@code GET /admin/backup/file?name=N&path=P} sends one of those, from an offset with
 * {@code Range: bytes=FROM-} (206) so a copy cut short goes on where it stopped. Manifests and
 * digests are read on a worker pool of their own, never on the event loop or behind a backup being taken.
 */
public final class BackupDownloads implements RouteMount {
  public static final String FILES_PATH = BackupAdmin.PATH + "/files";
  public static final String FILE_PATH = BackupAdmin.PATH + "/file";
  private static final String POOL = "quorumkv-backup-reads";
  private static final int THREADS = 2;
  private static final String FAILED = "reading the backup failed";
  private static final Pattern RANGE_FROM = Pattern.compile("bytes=(\\d{1,18})-");

  private final NodeBackups backups;
  private final WorkerExecutor worker;

  public BackupDownloads(Vertx vertx, NodeBackups backups) {
    this.backups = backups;
    // Digests of a large backup's first listing take a while.
    this.worker = vertx.createSharedWorkerExecutor(POOL, THREADS, InternalEndpoint.Timeout.BACKUP_MS,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void mount(Router router) {
    router.get(FILES_PATH).handler(ApiErrors.guarded(this::list));
    router.get(FILE_PATH).handler(ApiErrors.guarded(this::send));
    router.route(FILES_PATH).handler(ApiErrors.methodNotAllowed("GET"));
    router.route(FILE_PATH).handler(ApiErrors.methodNotAllowed("GET"));
  }

  private void list(RoutingContext ctx) {
    String name = QueryParams.of(ctx).optional("name");
    worker.executeBlocking(() -> {
      NodeBackup backup = backups.complete(name);
      List<BackupFiles.BackupFile> files = BackupFiles.of(backup);
      return new JsonObject().put("name", backup.manifest().name()).put("node", backup.manifest().node())
          .put("bytes", files.stream().mapToLong(BackupFiles.BackupFile::bytes).sum())
          .put("files", new JsonArray(files.stream().map(file -> new JsonObject().put("path", file.path())
              .put("bytes", file.bytes()).put("sha256", file.sha256())).toList()));
    }, false).onComplete(done -> {
      if (done.failed()) {
        ApiErrors.failCommand(ctx, done.cause(), FAILED);
      } else {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(done.result().encodePrettily());
      }
    });
  }

  private void send(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    String name = params.optional("name");
    String path = params.optional("path");
    String range = ctx.request().getHeader("Range");
    worker.executeBlocking(() -> {
      Path file = BackupFiles.file(backups.complete(name), path);
      return new Sized(file, Files.size(file));
    }, false).onComplete(done -> {
      if (done.failed()) {
        ApiErrors.failCommand(ctx, done.cause(), FAILED);
        return;
      }
      Sized file = done.result();
      long from = rangeStart(range);
      if (from >= file.bytes() && from > 0) {
        ctx.response().putHeader("Content-Range", "bytes */" + file.bytes());
        ApiErrors.send(ctx, 416, "range starts at " + from + ", the file has " + file.bytes() + " bytes");
        return;
      }
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/octet-stream")
          .putHeader("Accept-Ranges", "bytes");
      if (from > 0) {
        ctx.response().setStatusCode(206)
            .putHeader("Content-Range", "bytes " + from + "-" + (file.bytes() - 1) + "/" + file.bytes());
      }
      if (!ctx.response().closed()) {
        ctx.response().sendFile(file.path().toString(), from, file.bytes() - from);
      }
    });
  }

  /** Where a {@code Range: bytes=FROM-} asks to start; 0 for none, or any other form (answered whole, as RFC 9110 allows). */
  private static long rangeStart(String range) {
    if (range == null) {
      return 0;
    }
    Matcher matcher = RANGE_FROM.matcher(range.strip());
    return matcher.matches() ? Long.parseLong(matcher.group(1)) : 0;
  }

  private record Sized(Path path, long bytes) {
  }
}
