package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What a subcommand prints: for people, lines and tables with aligned columns; with
 * {@code --json}, one JSON document for scripts. A subcommand gives both and this picks.
 */
final class Output {
  private final PrintStream out;
  private final PrintStream progress;
  private final boolean json;

  Output(PrintStream out, boolean json) {
    this(out, System.err, json);
  }

  /** @param progress where progress lines go (stderr), with {@code --json} too */
  Output(PrintStream out, PrintStream progress, boolean json) {
    this.out = out;
    this.progress = progress;
    this.json = json;
  }

  /** A line saying how far a long subcommand got, on stderr, so that it never mixes with the result. */
  void progress(String text) {
    progress.println(text);
  }

  boolean json() {
    return json;
  }

  /** The JSON document, with {@code --json} only. */
  void json(Object document) {
    if (json) {
      out.println(document instanceof JsonObject object ? object.encodePrettily()
          : document instanceof JsonArray array ? array.encodePrettily() : String.valueOf(document));
    }
  }

  /** A line for people, not printed with {@code --json}. */
  void line(String text) {
    if (!json) {
      out.println(text);
    }
  }

  /** A table for people (its header first), not printed with {@code --json}. */
  void table(List<String> header, List<List<String>> rows) {
    if (json) {
      return;
    }
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    int[] widths = new int[header.size()];
    for (List<String> row : all) {
      for (int column = 0; column < row.size(); column++) {
        widths[column] = Math.max(widths[column], row.get(column).length());
      }
    }
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int column = 0; column < row.size(); column++) {
        boolean last = column == row.size() - 1;
        line.append(last ? row.get(column) : String.format("%-" + widths[column] + "s  ", row.get(column)));
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
