package io.quorumkv.topology;

/**
 * The stream a receiver pulls in a topology change: {@code GET /internal/v0/transfer?epoch=E&to=R[&after=K]}
 * (K base64url) answers, from the source, the records of keys after K that it sends R in the
 * streaming step of epoch E ({@link Topology#sends}), in the frames of the internal range stream
 * ({@code range.RangeProtocol}, frames of the shared {@code wire} format), with the count of records and bytes still to come in two headers.
 * A source at another epoch answers 409, and the receiver tries again.
 */
public final class TransferProtocol {
  /** The records still to come from the requested position on, counted before the stream starts. */
  public static final String RECORDS_HEADER = "X-QKV-Transfer-Records";
  /** Their key and value bytes. */
  public static final String BYTES_HEADER = "X-QKV-Transfer-Bytes";

  private TransferProtocol() {
  }
}
