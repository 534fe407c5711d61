package io.quorumkv.antientropy;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The purge gate trusts a confirmation only within the topology it was made in: a change can hand
 * a node copies it did not hold when an exchange confirmed it.
 */
class ConfirmationsTest {
  private static final NodeUrl SELF = NodeUrl.parse("url", "http://127.0.0.1:9001");
  private static final NodeUrl PEER = NodeUrl.parse("url", "http://127.0.0.1:9002");
  private static final List<NodeUrl> PAIR = List.of(SELF, PEER);
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final Record TOMBSTONE = Record.tombstone(5, 2);
  private static final long STORED_AT = 1_000;

  private final PeerTrees trees = new PeerTrees(SELF, PAIR);
  private final AtomicLong topologyEpoch = new AtomicLong(1);
  private final Confirmations confirmations = new Confirmations(trees, topologyEpoch::get);

  @Test
  void aConfirmationAfterTheRecordWasStoredAllowsItsPurge() {
    trees.reshape(1, PAIR, index -> { });
    assertFalse(confirmations.allows(KEY, TOMBSTONE, STORED_AT), "no exchange yet");
    confirmations.confirm(PEER, 1, STORED_AT);
    assertFalse(confirmations.allows(KEY, TOMBSTONE, STORED_AT), "the exchange began when the record was stored");
    confirmations.confirm(PEER, 1, STORED_AT + 1);
    assertTrue(confirmations.allows(KEY, TOMBSTONE, STORED_AT));
  }

  @Test
  void aTopologyChangeVoidsEveryConfirmationMadeBeforeIt() {
    trees.reshape(1, PAIR, index -> { });
    confirmations.confirm(PEER, 1, STORED_AT + 1);
    topologyEpoch.set(2);
    assertFalse(confirmations.allows(KEY, TOMBSTONE, STORED_AT), "the change is under way, the trees are the old ones");
    topologyEpoch.set(4);
    trees.reshape(4, PAIR, index -> { });
    assertFalse(confirmations.allows(KEY, TOMBSTONE, STORED_AT), "reshaped for the new topology: confirmed again first");
    assertEquals(0, confirmations.confirmedAt(PEER));
    confirmations.confirm(PEER, 4, STORED_AT + 1);
    assertTrue(confirmations.allows(KEY, TOMBSTONE, STORED_AT));
  }

  @Test
  void anExchangeBetweenTreesOfAnOlderTopologyConfirmsNothing() {
    trees.reshape(1, PAIR, index -> { });
    topologyEpoch.set(4);
    trees.reshape(4, PAIR, index -> { });
    confirmations.confirm(PEER, 1, STORED_AT + 1);
    assertFalse(confirmations.allows(KEY, TOMBSTONE, STORED_AT));
    assertEquals(0, confirmations.confirmedAt(PEER));
  }
}
