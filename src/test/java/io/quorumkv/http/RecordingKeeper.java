package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.support.Http;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keeps the fuzzed node's JFR recordings small, as an operator would: the node keeps every
 * recording's file for good and its API deletes none, and at a thousand requests a second a
 * recording of the default minute grows past 100 MB. Every few seconds it stops recordings that
 * have run longer than {@link #MAX_RUNNING}, and deletes the files of recordings other than the
 * fuzzer's own names once they are {@link #DELETE_AFTER} old (mutated names such as {@code 00} or
 * {@code 4294967296} otherwise each leave a file behind).
 */
final class RecordingKeeper implements Runnable {
  private static final Duration MAX_RUNNING = Duration.ofSeconds(5);
  private static final Duration DELETE_AFTER = Duration.ofSeconds(30);

  private final Http http;
  private final String authorization;
  private final Path recordingsDir;
  private final Set<String> ownNames;
  final LongAdder stopped = new LongAdder();
  final LongAdder deleted = new LongAdder();
  final LongAdder failed = new LongAdder();

  /** @param ownNames the names the fuzzer's valid requests use: their files stay */
  RecordingKeeper(Http http, String adminToken, Path recordingsDir, Set<String> ownNames) {
    this.http = http;
    this.authorization = "Bearer " + adminToken;
    this.recordingsDir = recordingsDir;
    this.ownNames = ownNames;
  }

  @Override
  public void run() {
    try {
      stopLongRecordings();
      deleteOldFiles();
    } catch (RuntimeException | IOException | AssertionError e) { // Http fails with AssertionError
      failed.increment(); // the fuzz threads judge the node; this is housekeeping
    }
  }

  private void stopLongRecordings() {
    HttpResponse<byte[]> list = http.send("GET", AdminApi.PATH, HttpRequest.BodyPublishers.noBody(),
        "Authorization", authorization);
    if (list.statusCode() != 200) {
      failed.increment();
      return;
    }
    Instant cutoff = Instant.now().minus(MAX_RUNNING);
    for (Object entry : new JsonArray(new String(list.body(), java.nio.charset.StandardCharsets.UTF_8))) {
      JsonObject recording = (JsonObject) entry;
      String started = recording.getString("started");
      if ("running".equals(recording.getString("state")) && started != null
          && Instant.parse(started).isBefore(cutoff)) {
        HttpResponse<byte[]> stop = http.send("POST", AdminApi.PATH + "/stop?name="
            + Http.encode(recording.getString("name")), HttpRequest.BodyPublishers.noBody(), "Authorization", authorization);
        (stop.statusCode() == 200 ? stopped : failed).increment();
      }
    }
  }

  private void deleteOldFiles() throws IOException {
    if (!Files.isDirectory(recordingsDir)) {
      return;
    }
    Instant cutoff = Instant.now().minus(DELETE_AFTER);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(recordingsDir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        String recording = name.substring(0, Math.max(0, name.indexOf('.')));
        if (!ownNames.contains(recording) && Files.getLastModifiedTime(file).toInstant().isBefore(cutoff)
            && Files.deleteIfExists(file)) {
          deleted.increment();
        }
      }
    }
  }
}
