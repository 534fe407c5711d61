package io.quorumkv.admin;

import io.quorumkv.config.CommandArguments;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code java -jar quorumkv.jar flame cpu|alloc|lock|wall FILE.jfr PAGE.html}: a recording taken
 * outside the node's HTTP API (with jcmd, say) to the flame graph {@code /admin/jfr/flame} would draw.
 */
public final class FlameGraphCommand {
  public static final String USAGE = "usage: java -jar quorumkv.jar flame cpu|alloc|lock|wall FILE.jfr PAGE.html";

  private FlameGraphCommand() {
  }

  /** Writes the page; returns the process's exit status (2 for bad arguments, 1 for a failed conversion). */
  public static int run(List<String> args) {
    if (CommandArguments.asksForHelp(args)) {
      System.out.println(USAGE);
      return 0;
    }
    if (args.size() != 3) {
      System.err.println(USAGE);
      return 2;
    }
    FlameKind kind;
    try {
      kind = FlameKind.of(args.get(0));
    } catch (IllegalArgumentException e) {
      System.err.println("flame: " + e.getMessage());
      System.err.println(USAGE);
      return 2;
    }
    Path jfr = Path.of(args.get(1));
    Path page = Path.of(args.get(2));
    try {
      kind.convert(jfr, page, jfr.getFileName() + " " + kind.lowerCaseName());
    } catch (IOException | RuntimeException e) {
      System.err.println("flame: cannot convert " + jfr + ": " + e);
      return 1;
    }
    System.err.println("flame: wrote " + page);
    return 0;
  }
}
