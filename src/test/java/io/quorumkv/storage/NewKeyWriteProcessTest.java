package io.quorumkv.storage;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.web.ApiHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static io.quorumkv.support.Http.text;
import static io.quorumkv.support.NodeProcess.jsonPath;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node as a process learns the keys it stored before a {@code kill -9} when it starts again, so
 * an older copy of such a key is still refused, while a key it never stored is written without a
 * read (as its metrics count).
 */
@ProcessTier
class NewKeyWriteProcessTest {
  /** A version of the node's clock format (milliseconds above a 16-bit counter). */
  private static final int COUNTER_BITS = 16;

  @TempDir
  Path dir;

  @Test
  void aKeyStoredBeforeAKill9IsStillReadBeforeItIsWritten() throws Exception {
    Path conf = NodeProcess.writeConf(dir, "node.json", "{\"url\": \"http://127.0.0.1:0\", \"dataDir\": "
        + "\"" + jsonPath(dir.resolve("data")) + "\"}");
    long newer = System.currentTimeMillis() << COUNTER_BITS;
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("first.log"))) {
      node.awaitReady();
      assertEquals(201, putRecord(node.http(), "stored", newer, "newer").statusCode());
      node.kill();
    }
    try (NodeProcess node = NodeProcess.launchWithConfig(conf, dir.resolve("second.log"))) {
      node.awaitReady();
      Http http = node.http();
      long older = newer - (60_000L << COUNTER_BITS);

      assertEquals(201, putRecord(http, "stored", older, "older").statusCode());
      http.putEntity("new", "v");

      assertEquals("newer", text(http.get("/v0/entity?id=stored")), "the older copy was refused");
      Await.until("the node's metrics count one key read first and one new key", Duration.ofSeconds(30),
          () -> counter(http, "quorumkv_storage_keys_read_before_writing_total") == 1
              && counter(http, "quorumkv_storage_new_keys_written_total") == 1,
          () -> text(http.get("/metrics")).lines().filter(line -> line.startsWith("quorumkv_storage_")).toList().toString());
      assertEquals(1, counter(http, "quorumkv_storage_new_key_filter_learned"));
    }
  }

  private static HttpResponse<byte[]> putRecord(Http http, String key, long version, String value) {
    return http.send("PUT", InternalEndpoint.RECORD_GET.path() + "?id=" + key, HttpRequest.BodyPublishers.ofString(value),
        ApiHeaders.VERSION, Long.toString(version), RecordHeaders.TOMBSTONE, "0",
        RecordHeaders.EXPIRES_AT, Long.toString(Record.NEVER), RecordHeaders.REPLICAS, "1");
  }

  private static double counter(Http http, String series) {
    return text(http.get("/metrics")).lines().filter(line -> line.startsWith(series + " ")).findFirst()
        .map(line -> Double.parseDouble(line.substring(series.length() + 1))).orElse(-1.0);
  }
}
