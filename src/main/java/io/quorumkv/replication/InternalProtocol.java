package io.quorumkv.replication;

/**
 * Coordinator-to-replica requests, never re-coordinated. Coordinators send every replica read
 * and write in a batch (see {@link RecordBatchCodec}) on a connection upgraded to a batch stream
 * ({@link #STREAM_PATH}), or as a {@code POST} to {@link #BATCH_PATH} to a node without streams.
 * {@link #RECORD_PATH} answers {@code GET} and {@code PUT} of one record, its metadata in
 * headers: for tools and tests that inspect or set one replica's own copy. The cluster secret,
 * when the conf sets one, travels in {@link #SECRET}.
 *
 * <p>A batch holds at most {@link #MAX_BATCH_OPERATIONS} operations (a replica answers 413 to
 * more): each read takes 5 request bytes plus its key but may answer with a value of up to the
 * body limit, so without a bound one small request could make a replica build an answer larger
 * than its heap. Coordinators never send more ({@link RemoteReplica}).
 */
public final class InternalProtocol {
  public static final String RECORD_PATH = "/internal/v0/record";
  public static final String BATCH_PATH = "/internal/v0/records";
  /**
   * A {@code GET} with {@code Upgrade: }{@link #STREAM_UPGRADE} turns the connection into a stream
   * of batches in {@link BatchFrames}, each answered as {@link #BATCH_PATH} would, by its id.
   */
  public static final String STREAM_PATH = "/internal/v0/records/stream";
  public static final String STREAM_UPGRADE = "quorumkv-records";
  /**
   * A conditional {@code PUT} or {@code DELETE} a coordinator sends to the key's first live
   * replica, with the client's query and conditional headers; it runs there, never sent on.
   */
  public static final String CONDITIONAL_PATH = "/internal/v0/conditional";
  public static final String SECRET = "X-QKV-Cluster-Secret";
  public static final int MAX_BATCH_OPERATIONS = 64;

  private InternalProtocol() {
  }
}
