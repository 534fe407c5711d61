package io.quorumkv.config;

import java.util.List;

/** What every command of the jar reads the same way from its arguments. */
public final class CommandArguments {
  private CommandArguments() {
  }

  /** Whether the arguments ask for the command's usage: {@link #isHelp a help word}, alone. */
  public static boolean asksForHelp(List<String> args) {
    return args.size() == 1 && isHelp(args.get(0));
  }

  /** Whether an argument is a help word: {@code --help} or {@code -h}. */
  public static boolean isHelp(String arg) {
    return arg.equals("--help") || arg.equals("-h");
  }
}
