package io.quorumkv.support;

/** Reading figures out of a node's {@code GET /metrics} answer (Prometheus text format). */
public final class Scrapes {
  private Scrapes() {
  }

  /** The value of {@code series}, written exactly as the scrape names it (labels included); fails if absent. */
  public static double value(String scrape, String series) {
    return scrape.lines().filter(line -> line.startsWith(series + " ")).findFirst()
        .map(line -> Double.parseDouble(line.substring(series.length() + 1)))
        .orElseThrow(() -> new AssertionError("no " + series + " in /metrics"));
  }
}
