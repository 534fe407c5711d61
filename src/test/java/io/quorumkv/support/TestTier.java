package io.quorumkv.support;

/**
 * Which of the build's test executions this JVM runs (pom.xml sets {@code quorumkv.tier} and, per
 * fork, {@code quorumkv.fork} as {@code fork-N}); outside Maven, neither is set and nothing is checked.
 */
public final class TestTier {
  private static final String TIER = System.getProperty("quorumkv.tier", "");

  private TestTier() {
  }

  /** Fails a fast-tier test that is about to start a node process: its class belongs in the process tier. */
  static void requireProcessTier() {
    if (TIER.equals("fast")) {
      throw new IllegalStateException("a test of the fast tier started a node process: annotate its class with"
          + " @" + ProcessTier.class.getSimpleName() + " (docs/testing.md)");
    }
  }

  /**
   * This JVM's fork number among those its execution runs at once, from 1 (1 outside Maven), so that
   * concurrent forks can keep to ports of their own.
   */
  static int fork() {
    String fork = System.getProperty("quorumkv.fork", "fork-1");
    try {
      return Math.max(1, Integer.parseInt(fork.substring(fork.indexOf('-') + 1)));
    } catch (NumberFormatException notSubstituted) {
      return 1;
    }
  }
}
