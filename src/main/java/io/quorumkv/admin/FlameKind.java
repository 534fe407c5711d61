package io.quorumkv.admin;

import one.convert.Arguments;
import one.convert.JfrToFlame;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The flame graphs of a JFR recording, each a self-contained HTML page: CPU (Java execution
 * samples), allocation samples, lock contention (monitor and park events), and wall (execution
 * plus native-method samples: where threads are, in Java or in native code).
 */
public enum FlameKind {
  CPU(ExecutionSampleFlameGraph::convert),
  ALLOC(converter("--alloc")),
  LOCK(converter("--lock")),
  WALL(converter("--wall"));

  private interface Conversion {
    void convert(Path jfr, Path page, String title) throws IOException;
  }

  private final Conversion conversion;

  FlameKind(Conversion conversion) {
    this.conversion = conversion;
  }

  /** The kind of that name ({@code cpu}, {@code alloc}, {@code lock}, {@code wall}); null means cpu. */
  public static FlameKind of(String type) {
    try {
      return valueOf((type == null ? "cpu" : type).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("type must be cpu, alloc, lock or wall, got '" + type + "'");
    }
  }

  /** Writes this kind's graph of the recording {@code jfr} to {@code page}. */
  public void convert(Path jfr, Path page, String title) throws IOException {
    conversion.convert(jfr, page, title);
  }

  public String lowerCaseName() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static Conversion converter(String flag) {
    return (jfr, page, title) -> JfrToFlame.convert(jfr.toString(), page.toString(), new Arguments(flag, "--title", title));
  }
}
