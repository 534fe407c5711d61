package io.quorumkv.support;

import java.io.PrintStream;
import java.util.Locale;

/** The nemesis's lines, each with the seconds since the run began. */
record StepLog(PrintStream out, long originNanos) {
  void say(String format, Object... args) {
    out.printf(Locale.ROOT, "[%8.3f s] nemesis: %s%n", (System.nanoTime() - originNanos) / 1e9,
        String.format(Locale.ROOT, format, args));
  }
}
