package io.quorumkv.antientropy;

/**
 * Anti-entropy with one other node, as this node sees it. Times are this node's wall-clock
 * millis, 0 for never.
 *
 * @param initiator         whether this node starts the exchanges of the pair (the lower URL does)
 * @param exchanging        whether an exchange started by this node is running
 * @param lastStartedAt     when the latest exchange this node started began
 * @param lastCompletedAt   when the latest exchange this node started completed
 * @param lastDurationMs    how long that exchange took
 * @param last              its figures, null before the first
 * @param keysRepaired      records copied either way by the exchanges this node started
 * @param completed         exchanges this node started that completed
 * @param failed            exchanges this node started that failed
 * @param lastError         why the latest failed one failed, null if none failed
 * @param confirmedAt       start of the latest exchange of the pair, started by either side, that
 *                          repaired every difference: what tombstone purges wait for
 */
public record PeerStatus(boolean initiator, boolean exchanging, long lastStartedAt, long lastCompletedAt,
                         long lastDurationMs, ExchangeResult last, long keysRepaired, long completed, long failed,
                         String lastError, long confirmedAt) {
}
