package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/** What several subcommands do alike with their arguments and the JSON they read. */
final class Subcommands {
  private Subcommands() {
  }

  static void noArguments(List<String> arguments) {
    if (!arguments.isEmpty()) {
      throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", arguments));
    }
  }

  /** The objects of a JSON list; none for a missing list. */
  static List<JsonObject> objects(JsonArray array) {
    List<JsonObject> objects = new ArrayList<>();
    if (array != null) {
      for (int i = 0; i < array.size(); i++) {
        objects.add(array.getJsonObject(i));
      }
    }
    return objects;
  }
}
