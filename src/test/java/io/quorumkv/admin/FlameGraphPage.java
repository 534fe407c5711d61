package io.quorumkv.admin;

import java.util.ArrayList;
import java.util.List;

/** The frame names of a flame graph page written by jfr-converter, read from its constant pool. */
final class FlameGraphPage {
  private static final String POOL_START = "const cpool = [";

  private FlameGraphPage() {
  }

  /**
   * Every frame name but the root's ({@code all}), class names dotted as Java writes them (the page
   * has {@code io/quorumkv/http/EntityHandler.get}, a lambda's {@code io.quorumkv.X$$Lambda$1+0x1/2.run}):
   * empty for a graph without frames. The page stores each name as one character (32 + the length it
   * shares with the name before) and the rest.
   */
  static List<String> frameNames(String html) {
    int start = html.indexOf(POOL_START);
    int end = html.indexOf("];", start);
    if (start < 0 || end < 0) {
      throw new AssertionError("not a flame graph page: no constant pool in " + html.length() + " characters");
    }
    List<String> names = new ArrayList<>();
    for (String line : html.substring(start + POOL_START.length(), end).strip().split("\n")) {
      String quoted = line.strip();
      String packed = quoted.substring(1, quoted.lastIndexOf('\''));
      String name = names.isEmpty() ? packed
          : names.get(names.size() - 1).substring(0, packed.charAt(0) - 32) + packed.substring(1);
      names.add(name);
    }
    return names.subList(1, names.size()).stream().map(name -> name.replace('/', '.')).toList();
  }
}
