package io.quorumkv.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the subcommands that change the topology take beside the common options: {@code --wait}
 * (follow the change until the topology is stable) and {@code --timeout SECONDS} (how long to
 * follow it, default 1800), and the arguments left.
 */
record WaitOptions(boolean follow, Duration timeout, List<String> rest) {
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  static final String USAGE = "[--wait [--timeout SECONDS]]";

  static WaitOptions parse(List<String> arguments) {
    boolean follow = false;
    Duration timeout = DEFAULT_TIMEOUT;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < arguments.size(); i++) {
      String argument = arguments.get(i);
      if (argument.equals("--wait")) {
        follow = true;
      } else if (argument.equals("--timeout")) {
        if (i + 1 == arguments.size()) {
          throw new IllegalArgumentException("--timeout needs a number of seconds");
        }
        timeout = seconds(arguments.get(++i));
      } else {
        rest.add(argument);
      }
    }
    return new WaitOptions(follow, timeout, List.copyOf(rest));
  }

  static Duration seconds(String text) {
    try {
      long seconds = Long.parseLong(text);
      if (seconds > 0) {
        return Duration.ofSeconds(seconds);
      }
    } catch (NumberFormatException ignored) {
      // said below
    }
    throw new IllegalArgumentException("--timeout must be a whole number of seconds above 0, got '" + text + "'");
  }
}
