package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.IndexEntry;
import io.quorumkv.storage.RecordIndex;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The answering side of an exchange ({@link TreeProtocol}): this node's tree for the asking
 * peer, read from memory, and the index entries of differing segments, read on a storage worker.
 */
public final class TreeService {
  private final PeerTrees trees;
  private final RecordIndex index;
  private final StorageService storage;
  private final Confirmations confirmations;
  private final InstantSource wallClock;

  public TreeService(PeerTrees trees, RecordIndex index, StorageService storage, Confirmations confirmations,
                     InstantSource wallClock) {
    this.trees = trees;
    this.index = index;
    this.storage = storage;
    this.confirmations = confirmations;
    this.wallClock = wallClock;
  }

  /** Whether {@code peer} is another node of the topology, one this node shares a tree with. */
  public boolean shares(NodeUrl peer) {
    return trees.tree(peer) != null;
  }

  /** The tree shared with {@code peer}; IllegalArgumentException when it is not another node of the topology. */
  private HashTree treeOf(NodeUrl peer) {
    HashTree tree = trees.tree(peer);
    if (tree == null) {
      throw new IllegalArgumentException("peer " + peer + " is not another node of this cluster");
    }
    return tree;
  }

  public Buffer root(NodeUrl peer, long theirRoot) {
    HashTree tree = treeOf(peer);
    long startedAt = wallClock.millis();
    long root = tree.root();
    return TreeProtocol.encodeRoot(new TreeProtocol.RootAnswer(startedAt, root,
        root == theirRoot ? null : tree.branches()));
  }

  public Buffer segments(NodeUrl peer, int[] branches) {
    HashTree tree = treeOf(peer);
    List<long[]> perBranch = new ArrayList<>(branches.length);
    for (int branch : branches) {
      perBranch.add(tree.segmentsOf(branch));
    }
    return TreeProtocol.encodeSegments(perBranch);
  }

  /** The records of {@code segments} this node shares with {@code peer}. */
  public Future<Buffer> keys(NodeUrl peer, int[] segments) {
    treeOf(peer);
    return sharedEntries(peer, segments).map(TreeProtocol::encodeKeys);
  }

  /** This node's index entries of {@code segments} for records it shares with {@code peer}. */
  Future<List<IndexEntry>> sharedEntries(NodeUrl peer, int[] segments) {
    return storage.submit(() -> index.entriesOf(segments).stream()
        .filter(entry -> trees.shares(entry.key(), entry.replicas(), peer))
        .toList());
  }

  public void done(NodeUrl peer, long since) {
    treeOf(peer);
    if (since > wallClock.millis()) {
      throw new IllegalArgumentException("since " + since + " is after this node's clock");
    }
    confirmations.confirm(peer, since);
  }
}
