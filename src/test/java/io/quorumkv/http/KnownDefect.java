package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.replication.InternalProtocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Product defects this fuzzer found, reported and awaiting their fix (see docs/reliability.md):
 * their failures are counted apart and fail the run only with {@code -Dfuzz.strict=true}, so the
 * fuzzer keeps guarding everything else meanwhile. Delete an entry once its fix is in; the run
 * then fails on it again if the fix does not hold.
 */
enum KnownDefect {
  /**
   * {@code JfrRecordings.file} dumps a running recording to one {@code NAME.snapshot.jfr} shared by
   * concurrent requests, so one request's conversion reads a file another is rewriting.
   */
  JFR_SNAPSHOT_RACE("concurrent flame graphs or files of one running recording: 500 'JFR operation failed'"),
  /**
   * {@code InternalHandler.batch} builds the whole answer in one buffer: a batch of many reads of
   * large values (8 request bytes each) can ask for more than the heap, and the request is never answered.
   */
  BATCH_ANSWER_UNBOUNDED("a batch of many reads: its answer built in memory past the heap, never answered");

  /** Reads this many operations or more in one batch can amplify past the fuzzed node's heap. */
  private static final int MANY_OPERATIONS = 100;

  final String description;

  KnownDefect(String description) {
    this.description = description;
  }

  /** The known defect this failure shows, or null; {@code answer} is null for a request left unanswered. */
  static KnownDefect of(FuzzRequest request, FuzzAnswer answer) {
    String text = new String(request.bytes(), StandardCharsets.ISO_8859_1);
    int lineEnd = text.indexOf('\n');
    RequestLine line = RequestLine.parse(lineEnd < 0 ? text : text.substring(0, lineEnd));
    if (answer != null && answer.status() == 500 && answer.body().startsWith("JFR operation failed")
        && (line.target().startsWith(AdminApi.PATH + "/flame") || line.target().startsWith(AdminApi.PATH + "/file"))) {
      return JFR_SNAPSHOT_RACE;
    }
    int headEnd = text.indexOf("\r\n\r\n");
    if (answer == null && line.method().equals("POST") && line.target().startsWith(InternalProtocol.BATCH_PATH)
        && headEnd >= 0) {
      byte[] body = Arrays.copyOfRange(request.bytes(), headEnd + 4, request.bytes().length);
      long operations = BatchField.of(body).stream().filter(f -> f.kind() == BatchField.Kind.OPERATION).count();
      if (operations >= MANY_OPERATIONS) {
        return BATCH_ANSWER_UNBOUNDED;
      }
    }
    return null;
  }
}
