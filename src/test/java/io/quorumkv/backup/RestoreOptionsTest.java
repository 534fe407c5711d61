package io.quorumkv.backup;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The restore tool's command line. */
class RestoreOptionsTest {
  private static final List<String> MINIMAL = List.of("--from", "b", "--url", "http://127.0.0.1:8080");

  @Test
  void defaultsAndTheEnvironmentsToken() {
    RestoreOptions options = RestoreOptions.parse(MINIMAL, "from-env");
    assertEquals("from-env", options.token());
    assertEquals(RestoreOptions.DEFAULT_RECORDS_PER_SECOND, options.recordsPerSecond());
    assertEquals(RestoreOptions.DEFAULT_BATCH_RECORDS, options.batchRecords());
    assertEquals(null, options.progress(), "the default is named after the backups, once they are read");
    RestoreOptions withToken = RestoreOptions.parse(concat(MINIMAL, "--token", "given", "--start", "a", "--end", "b"),
        "from-env");
    assertEquals("given", withToken.token());
    assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), withToken.start());
  }

  @Test
  void onlyTheSameRestoreSharesAProgressFile() {
    List<BackupManifest> backups = List.of(manifest(1_000));
    String plain = RestoreOptions.parse(MINIMAL, null).fingerprint(backups);
    assertEquals(plain, RestoreOptions.parse(concat(MINIMAL, "--rate", "5"), null).fingerprint(backups));
    assertNotEquals(plain, RestoreOptions.parse(concat(MINIMAL, "--start", "a"), null).fingerprint(backups));
    assertNotEquals(plain, RestoreOptions.parse(concat(MINIMAL, "--start", "a", "--rollback"), null)
        .fingerprint(backups));
    assertNotEquals(plain, RestoreOptions.parse(List.of("--from", "b", "--url", "http://127.0.0.1:8081"), null)
        .fingerprint(backups));
    assertNotEquals(plain, RestoreOptions.parse(MINIMAL, null).fingerprint(List.of(manifest(2_000))),
        "another backup at the same path");
  }

  private static BackupManifest manifest(long createdAt) {
    return new BackupManifest(BackupManifest.FORMAT_VERSION, "b", "http://n:1", createdAt,
        new io.vertx.core.json.JsonObject(), 0, 0, 0, 0, 0, 0, 0, 0, List.of());
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertRefused("--from is required", List.of("--url", "http://127.0.0.1:8080"));
    assertRefused("--url is required", List.of("--from", "b"));
    assertRefused("--url must be http", concat(List.of("--from", "b", "--url", "ftp://x")));
    assertRefused("--rollback needs --start", concat(MINIMAL, "--rollback"));
    assertRefused("--start must come before --end", concat(MINIMAL, "--start", "b", "--end", "a"));
    assertRefused("--rate must be a whole number", concat(MINIMAL, "--rate", "0"));
    assertRefused("--batch must be a whole number from 1 to 1000", concat(MINIMAL, "--batch", "5000"));
    assertRefused("unknown argument '--fast'", concat(MINIMAL, "--fast"));
    assertRefused("--end needs a value", concat(MINIMAL, "--end"));
  }

  private static void assertRefused(String message, List<String> args) {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> RestoreOptions.parse(args, null));
    assertTrue(refused.getMessage().contains(message), refused.getMessage());
  }

  private static List<String> concat(List<String> first, String... more) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }
}
