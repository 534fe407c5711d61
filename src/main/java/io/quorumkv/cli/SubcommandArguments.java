package io.quorumkv.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A subcommand's own arguments, once the common options are taken out: words (an action, a name),
 * flags ({@code --cluster}) and options with a value ({@code --name N}); anything else starting
 * with {@code --} is an IllegalArgumentException.
 */
final class SubcommandArguments {
  private final List<String> words = new ArrayList<>();
  private final Set<String> flags = new HashSet<>();
  private final Map<String, String> values = new HashMap<>();

  private SubcommandArguments() {
  }

  static SubcommandArguments parse(List<String> arguments, Set<String> flags, Set<String> valued) {
    SubcommandArguments parsed = new SubcommandArguments();
    for (int i = 0; i < arguments.size(); i++) {
      String argument = arguments.get(i);
      if (flags.contains(argument)) {
        parsed.flags.add(argument);
      } else if (valued.contains(argument)) {
        if (i + 1 == arguments.size()) {
          throw new IllegalArgumentException(argument + " needs a value");
        }
        parsed.values.put(argument, arguments.get(++i));
      } else if (argument.startsWith("--")) {
        throw new IllegalArgumentException("unknown option " + argument);
      } else {
        parsed.words.add(argument);
      }
    }
    return parsed;
  }

  boolean has(String flag) {
    return flags.contains(flag);
  }

  /** The option's value; null when not given. */
  String value(String option) {
    return values.get(option);
  }

  String required(String option) {
    String value = values.get(option);
    if (value == null) {
      throw new IllegalArgumentException(option + " is required");
    }
    return value;
  }

  /** The words, which must be {@code expected.length} at most; the missing ones are null. */
  List<String> words(String... expected) {
    if (words.size() > expected.length) {
      throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", words.subList(expected.length,
          words.size())));
    }
    List<String> padded = new ArrayList<>(words);
    while (padded.size() < expected.length) {
      padded.add(null);
    }
    return padded;
  }

  /** The word at {@code index}, which must be given. */
  String word(int index, String what) {
    if (index >= words.size()) {
      throw new IllegalArgumentException(what + " is required");
    }
    return words.get(index);
  }
}
