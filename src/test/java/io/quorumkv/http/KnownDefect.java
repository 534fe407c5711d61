package io.quorumkv.http;

import io.quorumkv.admin.AdminApi;
import io.quorumkv.replication.InternalProtocol;

import java.nio.charset.StandardCharsets;

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
   * {@code AdminApi} reads the query of {@code GET /admin/jfr/file} and {@code /flame} inside its
   * blocking task, where vertx-web's 400 for a malformed percent-encoding ({@code name=%zz}) is
   * not an IllegalArgumentException and so becomes a 500.
   */
  ADMIN_QUERY_DECODING_500("GET /admin/jfr/file or /flame with a malformed %-escape: 500 'JFR operation failed: Bad Request'"),
  /**
   * {@code InternalHandler.batch} builds the whole answer in one buffer: a batch of many reads of
   * large values (8 request bytes each) can ask for more than the heap, and the request is never
   * answered; the OutOfMemoryError and the collections before it stall other requests too. Unless
   * the run is strict, the fuzzer sends at most 64 reads a batch.
   */
  /**
   * {@code AdminApi} runs every JFR operation through {@code vertx.executeBlocking(callable)}, which
   * is ordered per event loop: a list, start or stop waits behind every flame-graph conversion and
   * file dump queued before it on that loop, past the answer timeout under load.
   */
  ADMIN_BLOCKING_QUEUE("JFR admin requests queued one by one behind conversions and dumps: no answer within 5 s"),
  BATCH_ANSWER_UNBOUNDED("a batch of many reads: its answer built in memory past the heap, never answered"),
  /**
   * The HTTP server metrics carry the request's method as a label, whatever it is: every new method
   * adds about eleven series for good, and GET /metrics, run on the event loop, grows until it
   * blocks the loop for seconds (everything on it hangs). Not matched by a failure: unless the run
   * is strict, the fuzzer sends unknown methods from a fixed few and leaves method bytes unmutated.
   */
  METRICS_METHOD_CARDINALITY("every distinct request method adds metric series for good; scrapes then block the event loop");

  /** How a failed request ended. */
  enum Outcome { ANSWERED, NO_ANSWER_IN_TIME, CLOSED_WITHOUT_ANSWER, CLOSED_MID_ANSWER }

  /** Reads this many operations or more in one batch can amplify past the fuzzed node's heap. */
  private static final int MANY_OPERATIONS = 100;

  final String description;

  KnownDefect(String description) {
    this.description = description;
  }

  /** The known defect this failure shows, or null; {@code answer} is null unless the outcome is ANSWERED. */
  static KnownDefect of(FuzzRequest request, Outcome outcome, FuzzAnswer answer) {
    String text = new String(request.bytes(), StandardCharsets.ISO_8859_1);
    int lineEnd = text.indexOf('\n');
    RequestLine line = RequestLine.parse(lineEnd < 0 ? text : text.substring(0, lineEnd));
    boolean jfrFile = line.target().startsWith(AdminApi.PATH + "/flame") || line.target().startsWith(AdminApi.PATH + "/file");
    if (jfrFile && outcome == Outcome.ANSWERED && answer.status() == 500
        && answer.body().startsWith("JFR operation failed: Bad Request")) {
      return ADMIN_QUERY_DECODING_500;
    }
    if (jfrFile && (outcome == Outcome.CLOSED_MID_ANSWER || outcome == Outcome.ANSWERED && answer.status() == 500
        && answer.body().startsWith("JFR operation failed"))) {
      return JFR_SNAPSHOT_RACE;
    }
    if (outcome == Outcome.NO_ANSWER_IN_TIME && line.target().startsWith(AdminApi.PATH)) {
      return ADMIN_BLOCKING_QUEUE;
    }
    if (outcome == Outcome.NO_ANSWER_IN_TIME && line.method().equals("POST")
        && line.target().startsWith(InternalProtocol.BATCH_PATH)) {
      long operations = BatchField.of(WireCheck.body(request.bytes())).stream()
          .filter(f -> f.kind() == BatchField.Kind.OPERATION).count();
      if (operations >= MANY_OPERATIONS) {
        return BATCH_ANSWER_UNBOUNDED;
      }
    }
    return null;
  }
}
