package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.PurgeGate;
import io.quorumkv.storage.Record;

import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What exchanges confirmed: per other node, when (this node's wall-clock millis) the latest
 * exchange with it began that then repaired every difference, whichever side started it. A
 * record this node held when such an exchange began is held by that node too (or something that
 * supersedes it), so a tombstone or expired record may be purged here once every other node of
 * its home set has confirmed it after it was stored here. Kept in memory: after a restart
 * nothing is purged until new exchanges confirm.
 */
public final class Confirmations implements PurgeGate {
  private final PeerTrees trees;
  private final Map<NodeUrl, AtomicLong> confirmedAt = new ConcurrentHashMap<>();

  public Confirmations(PeerTrees trees) {
    this.trees = trees;
  }

  /** An exchange with {@code peer} that began at {@code startedAt} (this node's millis) repaired everything. */
  public void confirm(NodeUrl peer, long startedAt) {
    confirmedAt.computeIfAbsent(peer, p -> new AtomicLong()).accumulateAndGet(startedAt, Math::max);
  }

  /** This node's millis at the start of the latest fully repaired exchange with {@code peer}; 0 for none. */
  public long confirmedAt(NodeUrl peer) {
    AtomicLong at = confirmedAt.get(peer);
    return at == null ? 0 : at.get();
  }

  @Override
  public boolean allows(byte[] key, Record record, long storedAt) {
    List<NodeUrl> sharers = trees.sharers(key, record.replicas());
    for (NodeUrl peer : sharers) {
      if (confirmedAt(peer) <= storedAt) {
        return false;
      }
    }
    return true;
  }
}
