package io.quorumkv.config;

import java.util.List;

/** What every command of the jar reads the same way from its arguments. */
public final class CommandArguments {
  private CommandArguments() {
  }

  /** Whether the arguments ask for the command's usage: {@code --help} or {@code -h}, alone. */
  public static boolean asksForHelp(List<String> args) {
    return args.size() == 1 && (args.get(0).equals("--help") || args.get(0).equals("-h"));
  }
}
