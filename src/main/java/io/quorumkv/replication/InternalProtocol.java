package io.quorumkv.replication;

/**
 * Coordinator-to-replica requests, never re-coordinated. Coordinators send every replica read
 * and write as {@code POST} of a batch to {@link #BATCH_PATH} (see {@link RecordBatchCodec}).
 * {@link #RECORD_PATH} answers {@code GET} and {@code PUT} of one record, its metadata in
 * headers: for tools and tests that inspect or set one replica's own copy. The cluster secret,
 * when the conf sets one, travels in {@link #SECRET}.
 */
public final class InternalProtocol {
  public static final String RECORD_PATH = "/internal/v0/record";
  public static final String BATCH_PATH = "/internal/v0/records";
  public static final String SECRET = "X-QKV-Cluster-Secret";

  private InternalProtocol() {
  }
}
