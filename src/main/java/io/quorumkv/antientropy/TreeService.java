package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.RecordIndex;
import io.quorumkv.storage.StorageService;
import io.quorumkv.storage.WriteClock;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The answering side of an exchange ({@link TreeProtocol}): this node's tree for the asking
 * peer, read from memory, and the index entries of differing segments, read on a storage worker.
 * Every request names the epoch the asker's trees are shaped for; trees of another epoch cover
 * other keys, so such a request fails with a {@link TreeEpochException}.
 */
public final class TreeService {
  private final PeerTrees trees;
  private final RecordIndex index;
  private final StorageService storage;
  private final Confirmations confirmations;
  private final WriteClock writeClock;

  public TreeService(PeerTrees trees, RecordIndex index, StorageService storage, Confirmations confirmations,
                     WriteClock writeClock) {
    this.trees = trees;
    this.index = index;
    this.storage = storage;
    this.confirmations = confirmations;
    this.writeClock = writeClock;
  }

  /** Whether {@code peer} is another node of the topology, one this node shares a tree with. */
  public boolean shares(NodeUrl peer) {
    return trees.tree(peer) != null;
  }

  /**
   * The tree shared with {@code peer}; IllegalArgumentException when it is not another node of the
   * topology, TreeEpochException when the trees are not shaped for {@code epoch}.
   */
  private HashTree treeOf(NodeUrl peer, long epoch) {
    if (trees.epoch() != epoch) {
      throw new TreeEpochException(trees.epoch(), epoch);
    }
    HashTree tree = trees.tree(peer);
    if (tree == null) {
      throw new IllegalArgumentException("peer " + peer + " is not another node of this cluster");
    }
    return tree;
  }

  public Buffer root(NodeUrl peer, long epoch, long theirRoot) {
    HashTree tree = treeOf(peer, epoch);
    long startedAt = writeClock.exchangeStart();
    long root = tree.root();
    return TreeProtocol.encodeRoot(new TreeProtocol.RootAnswer(startedAt, root,
        root == theirRoot ? null : tree.branches()));
  }

  public Buffer segments(NodeUrl peer, long epoch, int[] branches) {
    HashTree tree = treeOf(peer, epoch);
    List<long[]> perBranch = new ArrayList<>(branches.length);
    for (int branch : branches) {
      perBranch.add(tree.segmentsOf(branch));
    }
    return TreeProtocol.encodeSegments(perBranch);
  }

  /** The records of {@code segments} this node shares with {@code peer}. */
  public Future<Buffer> keys(NodeUrl peer, long epoch, int[] segments) {
    return sharedEntries(peer, epoch, segments).map(TreeProtocol::encodeKeys);
  }

  /** This node's index entries of {@code segments} for records it shares with {@code peer} in the trees of {@code epoch}. */
  Future<List<IndexEntry>> sharedEntries(NodeUrl peer, long epoch, int[] segments) {
    try {
      treeOf(peer, epoch);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return storage.submit(() -> index.entriesOf(segments).stream()
        .filter(entry -> trees.shares(entry.key(), entry.replicas(), peer))
        .toList());
  }

  public void done(NodeUrl peer, long epoch, long since) {
    treeOf(peer, epoch);
    if (since > writeClock.now()) {
      throw new IllegalArgumentException("since " + since + " is after this node's clock");
    }
    confirmations.confirm(peer, epoch, since);
  }

  /** The clock exchanges take their start from. */
  WriteClock writeClock() {
    return writeClock;
  }
}
