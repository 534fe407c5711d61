package io.quorumkv.replication;

/**
 * Coordinator-to-replica requests, never re-coordinated (their paths are in the endpoint table,
 * {@code peer.InternalEndpoint}: {@code RECORD_*}). Coordinators send every replica read and
 * write in a batch ({@code wire.BatchOperations}, answered with {@link BatchAnswers}) on a
 * connection upgraded to a batch stream ({@code RECORD_STREAM}, with {@code Upgrade: }
 * {@link #STREAM_UPGRADE}; {@code wire.Frame}s both ways), or as a {@code POST}
 * ({@code RECORD_BATCH}, one frame each way) to a node without streams.
 * {@code RECORD_GET} and {@code RECORD_PUT} read and write one record, its metadata in
 * headers ({@link RecordHeaders}): for tools and tests that inspect or set one replica's own copy.
 *
 * <p>A batch holds at most {@link #MAX_BATCH_OPERATIONS} operations (a replica answers 413 to
 * more): each read takes 5 request bytes plus its key but may answer with a value of up to the
 * body limit, so without a bound one small request could make a replica build an answer larger
 * than its heap. Coordinators never send more ({@link RemoteReplica}).
 *
 * <p>A replica that takes digest reads says so on its stream's {@code 101} ({@link #DIGESTS_HEADER}):
 * a coordinator sends them on such a stream only, plain reads elsewhere, so that a node of a
 * release without them is never sent an operation it does not know.
 */
public final class InternalProtocol {
  public static final String STREAM_UPGRADE = "quorumkv-records";
  public static final String DIGESTS_HEADER = "X-QKV-Read-Digests";
  public static final int MAX_BATCH_OPERATIONS = 64;

  private InternalProtocol() {
  }
}
