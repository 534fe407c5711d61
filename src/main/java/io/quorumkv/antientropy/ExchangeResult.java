package io.quorumkv.antientropy;

/**
 * The figures of one finished exchange with one peer.
 *
 * @param branchesDiffering branches whose digests differed (0 when the roots matched)
 * @param segmentsDiffering segments whose digests differed
 * @param keysDiffering     keys held differently (by digest) on the two sides
 * @param pushed            records copied to the peer
 * @param pulled            records copied from the peer
 */
public record ExchangeResult(int branchesDiffering, int segmentsDiffering, long keysDiffering, long pushed,
                             long pulled) {

  public long repaired() {
    return pushed + pulled;
  }
}
