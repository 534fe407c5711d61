package io.quorumkv.support;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a node's {@code GET /metrics} says per peer: the series have to follow the topology. */
public final class PeerMetrics {
  private static final Pattern PEER = Pattern.compile("\\bpeer=\"([^\"]+)\"");
  private static final Duration FOLLOWS_WITHIN = Duration.ofSeconds(10);

  private PeerMetrics() {
  }

  /**
   * Waits until the node's {@code /metrics} answers 200 with anti-entropy series that name exactly
   * {@code peers} (a departed peer's gone, a joiner's there), failing with what it last answered after
   * {@link #FOLLOWS_WITHIN}: a node learns of a change a moment after the others say it is stable.
   */
  public static void assertExchangeSeriesFollow(Http node, Set<String> peers) {
    Set<String> wanted = new TreeSet<>(peers);
    String[] seen = {"no answer"};
    Await.until("GET /metrics on " + node.base() + " answers 200 with anti-entropy series of " + wanted,
        FOLLOWS_WITHIN, () -> {
          HttpResponse<byte[]> metrics = node.get("/metrics");
          if (metrics.statusCode() != 200) {
            seen[0] = metrics.statusCode() + " " + Http.text(metrics);
            return false;
          }
          Set<String> named = exchangePeers(Http.text(metrics));
          seen[0] = "200 with series of " + named;
          return named.equals(wanted);
        }, () -> "it answered " + seen[0]);
  }

  private static Set<String> exchangePeers(String metrics) {
    Set<String> named = new TreeSet<>();
    metrics.lines().filter(line -> line.startsWith("quorumkv_antientropy_")).forEach(line -> {
      Matcher peer = PEER.matcher(line);
      if (peer.find()) {
        named.add(peer.group(1));
      }
    });
    return named;
  }
}
