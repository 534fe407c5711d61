package io.quorumkv.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One JSON object of the conf file, read key by key with types checked. Every key read is
 * remembered so that {@link #rejectUnknownKeys()} can name any key the node does not know.
 */
final class JsonSection {
  private final JsonObject json;
  private final String prefix;
  private final Set<String> known = new HashSet<>();

  JsonSection(JsonObject json, String prefix) {
    this.json = json;
    this.prefix = prefix;
  }

  String path(String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  boolean has(String key) {
    known.add(key);
    return json.containsKey(key) && json.getValue(key) != null;
  }

  String string(String key, String fallback) {
    return has(key) ? typed(key, String.class, "a string") : fallback;
  }

  boolean bool(String key, boolean fallback) {
    return has(key) ? typed(key, Boolean.class, "true or false") : fallback;
  }

  String requiredString(String key) {
    if (!has(key)) {
      throw new ConfigException("missing key '" + path(key) + "'");
    }
    return typed(key, String.class, "a string");
  }

  long positiveLong(String key, long fallback) {
    if (!has(key)) {
      return fallback;
    }
    long result = wholeNumber(key);
    if (result <= 0) {
      throw new ConfigException("'" + path(key) + "' must be positive, got " + result);
    }
    return result;
  }

  /** For the keys where 0 means "never" or "none". */
  long nonNegativeLong(String key, long fallback) {
    if (!has(key)) {
      return fallback;
    }
    long result = wholeNumber(key);
    if (result < 0) {
      throw new ConfigException("'" + path(key) + "' must be zero or positive, got " + result);
    }
    return result;
  }

  /** {@link #nonNegativeLong(String, long)} up to {@code max}. */
  long nonNegativeLong(String key, long fallback, long max) {
    long value = nonNegativeLong(key, fallback);
    if (value > max) {
      throw new ConfigException("'" + path(key) + "' must be at most " + max + ", got " + value);
    }
    return value;
  }

  long positiveLong(String key, long fallback, long max) {
    long value = positiveLong(key, fallback);
    if (value > max) {
      throw new ConfigException("'" + path(key) + "' must be at most " + max + ", got " + value);
    }
    return value;
  }

  int positiveInt(String key, int fallback, int max) {
    long value = positiveLong(key, fallback);
    if (value > max) {
      throw new ConfigException("'" + path(key) + "' must be at most " + max + ", got " + value);
    }
    return (int) value;
  }

  List<String> strings(String key) {
    if (!has(key)) {
      return null;
    }
    JsonArray array = typed(key, JsonArray.class, "a list of strings");
    List<String> result = new ArrayList<>();
    for (Object item : array) {
      if (!(item instanceof String s)) {
        throw new ConfigException("'" + path(key) + "' must be a list of strings, holds " + describe(item));
      }
      result.add(s);
    }
    return result;
  }

  /** A list of objects, each read as a section named {@code key[i]}; null when absent. */
  List<JsonSection> sections(String key) {
    if (!has(key)) {
      return null;
    }
    return sectionsOf(typed(key, JsonArray.class, "a list of objects"), path(key));
  }

  /** Each object of {@code array} as a section named {@code name[i]}; anything else in it is refused. */
  static List<JsonSection> sectionsOf(JsonArray array, String name) {
    List<JsonSection> result = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject object)) {
        // Not quoted: a token given where its object belongs must not reach a log.
        throw new ConfigException("'" + name + "[" + i + "]' must be an object");
      }
      result.add(new JsonSection(object, name + "[" + i + "]"));
    }
    return result;
  }

  /** The key's value whatever its type (the key counts as known), null when absent. */
  Object raw(String key) {
    return has(key) ? json.getValue(key) : null;
  }

  <T> T section(String key, Function<JsonSection, T> reader) {
    if (!has(key)) {
      return null;
    }
    JsonSection child = new JsonSection(typed(key, JsonObject.class, "an object"), path(key));
    T result = reader.apply(child);
    child.rejectUnknownKeys();
    return result;
  }

  void rejectUnknownKeys() {
    for (String key : json.fieldNames()) {
      if (!known.contains(key)) {
        throw new ConfigException("unknown key '" + path(key) + "'");
      }
    }
  }

  /** The key's value as a long; a fraction (even one that rounds to 0) or a non-number is refused. */
  private long wholeNumber(String key) {
    Object value = json.getValue(key);
    if (!(value instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())
        || value instanceof Double && Math.abs(n.doubleValue()) > Long.MAX_VALUE) {
      throw new ConfigException("'" + path(key) + "' must be a whole number, got " + describe(value));
    }
    return n.longValue();
  }

  private <T> T typed(String key, Class<T> type, String expected) {
    Object value = json.getValue(key);
    if (!type.isInstance(value)) {
      throw new ConfigException("'" + path(key) + "' must be " + expected + ", got " + describe(value));
    }
    return type.cast(value);
  }

  private static String describe(Object value) {
    if (value instanceof String s) {
      return "\"" + s + "\"";
    }
    if (value instanceof JsonObject) {
      return "an object";
    }
    if (value instanceof JsonArray) {
      return "a list";
    }
    return String.valueOf(value);
  }
}
