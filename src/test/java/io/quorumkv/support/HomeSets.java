package io.quorumkv.support;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.placement.Rendezvous;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where keys belong under one topology: a key's home set is the first {@code replicas} nodes of
 * its rendezvous order over the members, {@code replicas} being the widest count its copies were
 * written with, and never more than the members (docs/consistency.md, "Where a key belongs").
 */
public final class HomeSets {
  private final Rendezvous placement;

  /** @param members the topology's nodes, by url */
  public HomeSets(Collection<String> members) {
    this.placement = new Rendezvous(members.stream().map(url -> NodeUrl.parse("url", url)).toList());
  }

  /** The urls of the key's home set for a record count of {@code replicas}. */
  public Set<String> of(String key, int replicas) {
    List<NodeUrl> home = placement.replicasFor(key.getBytes(StandardCharsets.UTF_8), Math.min(replicas, placement.size()));
    Set<String> urls = new TreeSet<>();
    home.forEach(node -> urls.add(node.toString()));
    return urls;
  }

  /** The widest record count among the key's copies on these nodes (each node's records by key), 0 when none holds it. */
  public static int widest(String key, Collection<? extends Map<String, NodeRecords.Held>> held) {
    int widest = 0;
    for (Map<String, NodeRecords.Held> node : held) {
      NodeRecords.Held copy = node.get(key);
      widest = copy == null ? widest : Math.max(widest, copy.replicas());
    }
    return widest;
  }
}
