package io.quorumkv.admin;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quorumkv.config.NodeUrl;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The series one kind of figure has per peer, kept in step with the peers there are: a departed
 * peer's meters leave the registry, a joiner's are registered, each time {@link #follow} is told
 * who the peers are now (before every scrape).
 */
final class PeerSeries {
  private final MeterRegistry registry;
  private final Function<NodeUrl, List<Meter>> register;
  private final Map<NodeUrl, List<Meter>> registered = new HashMap<>();

  /** {@code register} registers a peer's meters and returns them. */
  PeerSeries(MeterRegistry registry, Function<NodeUrl, List<Meter>> register) {
    this.registry = registry;
    this.register = register;
  }

  synchronized void follow(Set<NodeUrl> peers) {
    registered.entrySet().removeIf(entry -> {
      if (peers.contains(entry.getKey())) {
        return false;
      }
      entry.getValue().forEach(registry::remove);
      return true;
    });
    for (NodeUrl peer : peers) {
      registered.computeIfAbsent(peer, register);
    }
  }
}
