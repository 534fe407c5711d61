package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.PurgeGate;
import io.quorumkv.storage.Record;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What exchanges confirmed: per other node, when (this node's {@code WriteClock} millis) the
 * latest exchange with it began that then repaired every difference, whichever side started it,
 * and the topology epoch the two sides' trees were shaped for. A record this node held when such
 * an exchange began is held by that node too (or something that supersedes it), so a tombstone or
 * expired record may be purged here once every other node of its home set has confirmed it after
 * it was stored here.
 *
 * <p>A confirmation speaks only of the keys the two nodes shared in its epoch's topology, so it
 * counts only while the trees are shaped for that epoch and that epoch is the topology in force:
 * a topology change, which can hand a node copies it did not hold when it was confirmed, resets
 * them all (and purges wait during the change). Kept in memory: after a restart nothing is purged
 * until new exchanges confirm.
 */
public final class Confirmations implements PurgeGate {
  private record Confirmed(long epoch, long at) {
    Confirmed laterOf(Confirmed other) {
      if (epoch != other.epoch) {
        return epoch > other.epoch ? this : other;
      }
      return at >= other.at ? this : other;
    }
  }

  private final PeerTrees trees;
  private final LongSupplier topologyEpoch;
  private final Map<NodeUrl, Confirmed> confirmed = new ConcurrentHashMap<>();

  /** @param topologyEpoch the epoch of the topology in force */
  public Confirmations(PeerTrees trees, LongSupplier topologyEpoch) {
    this.trees = trees;
    this.topologyEpoch = topologyEpoch;
  }

  /**
   * An exchange with {@code peer}, between trees shaped for {@code epoch}, that began at {@code
   * startedAt} repaired everything; ignored when the trees have been reshaped since.
   */
  public void confirm(NodeUrl peer, long epoch, long startedAt) {
    if (epoch == trees.epoch()) {
      confirmed.merge(peer, new Confirmed(epoch, startedAt), Confirmed::laterOf);
    }
  }

  /** When the latest fully repaired exchange with {@code peer} began, in the current trees' epoch; 0 for none. */
  public long confirmedAt(NodeUrl peer) {
    Confirmed at = confirmed.get(peer);
    return at == null || at.epoch() != trees.epoch() ? 0 : at.at();
  }

  @Override
  public boolean allows(byte[] key, Record record, long storedAt) {
    long epoch = trees.epoch();
    if (epoch != topologyEpoch.getAsLong()) {
      return false;
    }
    List<NodeUrl> sharers = trees.sharers(key, record.replicas());
    for (NodeUrl peer : sharers) {
      Confirmed at = confirmed.get(peer);
      if (at == null || at.epoch() != epoch || at.at() <= storedAt) {
        return false;
      }
    }
    return true;
  }
}
