package io.quorumkv.support;

/**
 * The size a soak runs at: CI's by default, the full one with {@code -Dsoak=full} (docs/testing.md).
 * A soak's own property (such as {@code membership.keys}) still overrides either.
 */
public final class Soak {
  private static final boolean FULL = full(System.getProperty("soak", "ci"));

  private Soak() {
  }

  private static boolean full(String size) {
    return switch (size) {
      case "ci" -> false;
      case "full" -> true;
      default -> throw new IllegalArgumentException("-Dsoak takes ci or full, not " + size);
    };
  }

  /** Whether soaks run at full size. */
  public static boolean isFull() {
    return FULL;
  }

  /** {@code property} if set, else {@code ci} or, under {@code -Dsoak=full}, {@code full}. */
  public static int size(String property, int ci, int full) {
    return Integer.getInteger(property, FULL ? full : ci);
  }

  /** {@code ci} or, under {@code -Dsoak=full}, {@code full}. */
  public static int size(int ci, int full) {
    return FULL ? full : ci;
  }

  /** A name for the size, for a soak's report. */
  public static String name() {
    return FULL ? "full size (-Dsoak=full)" : "CI size (-Dsoak=full for the full one)";
  }
}
