package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RendezvousTest {
  private static final List<NodeUrl> THREE = List.of(url(8080), url(8081), url(8082));

  @Test
  void twoNodesShare10000KeysEvenly() {
    Rendezvous placement = new Rendezvous(List.of(url(8080), url(8081)));
    Map<NodeUrl, Integer> owned = countOwners(placement, 10_000);
    for (int count : owned.values()) {
      assertTrue(Math.abs(count - 5_000) <= 100, "owner counts " + owned);
    }
  }

  @Test
  void threeNodesShareKeysEvenly() {
    Map<NodeUrl, Integer> owned = countOwners(new Rendezvous(THREE), 30_000);
    for (int count : owned.values()) {
      assertTrue(Math.abs(count - 10_000) <= 300, "owner counts " + owned);
    }
  }

  @Test
  void smallerReplicaSetsArePrefixesOfLargerOnes() {
    Rendezvous placement = new Rendezvous(THREE);
    for (int i = 0; i < 1_000; i++) {
      byte[] key = key(i);
      List<NodeUrl> all = placement.replicasFor(key, 3);
      assertEquals(3, all.stream().distinct().count());
      assertEquals(all.subList(0, 1), placement.replicasFor(key, 1));
      assertEquals(all.subList(0, 2), placement.replicasFor(key, 2));
    }
  }

  @Test
  void orderOfTheConfListDoesNotMatter() {
    Rendezvous a = new Rendezvous(THREE);
    Rendezvous b = new Rendezvous(List.of(url(8082), url(8080), url(8081)));
    for (int i = 0; i < 1_000; i++) {
      assertEquals(a.replicasFor(key(i), 3), b.replicasFor(key(i), 3));
    }
  }

  @Test
  void addingANodeMovesOnlyTheKeysItTakes() {
    Rendezvous before = new Rendezvous(THREE);
    Rendezvous after = new Rendezvous(List.of(url(8080), url(8081), url(8082), url(8083)));
    int moved = 0;
    for (int i = 0; i < 10_000; i++) {
      NodeUrl owner = after.replicasFor(key(i), 1).get(0);
      if (!owner.equals(before.replicasFor(key(i), 1).get(0))) {
        assertEquals(url(8083), owner, "a key moved between old nodes");
        moved++;
      }
    }
    assertTrue(Math.abs(moved - 2_500) <= 200, "moved " + moved);
  }

  private static Map<NodeUrl, Integer> countOwners(Rendezvous placement, int keys) {
    Map<NodeUrl, Integer> owned = new HashMap<>();
    for (int i = 0; i < keys; i++) {
      owned.merge(placement.replicasFor(key(i), 1).get(0), 1, Integer::sum);
    }
    return owned;
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static NodeUrl url(int port) {
    return new NodeUrl("127.0.0.1", port);
  }
}
