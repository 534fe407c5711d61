package io.quorumkv.config;

import io.vertx.core.json.JsonObject;

import java.util.Map;

/**
 * Conf keys written dotted, as the docs name them ({@code {"antiEntropy.intervalMs": 5000}}),
 * turned into the nested keys they stand for ({@code {"antiEntropy": {"intervalMs": 5000}}}).
 * Both forms may be mixed in one file; a key given in both is refused.
 */
final class DottedKeys {
  private DottedKeys() {
  }

  /** A copy of {@code json} in which no key holds a dot. */
  static JsonObject nest(JsonObject json) {
    return nest(json, "");
  }

  private static JsonObject nest(JsonObject json, String prefix) {
    JsonObject nested = new JsonObject();
    for (Map.Entry<String, Object> entry : json) {
      put(nested, prefix, entry.getKey(), entry.getValue());
    }
    return nested;
  }

  /** Puts {@code value} at the (possibly dotted) {@code key} of {@code target}, whose own path is {@code prefix}. */
  private static void put(JsonObject target, String prefix, String key, Object value) {
    String[] parts = key.split("\\.", -1);
    String fullKey = join(prefix, key);
    for (String part : parts) {
      if (part.isEmpty()) {
        throw new ConfigException("key '" + fullKey + "' has an empty part between its dots");
      }
    }
    JsonObject parent = target;
    String parentPath = prefix;
    for (int i = 0; i < parts.length - 1; i++) {
      Object child = parent.getValue(parts[i]);
      parentPath = join(parentPath, parts[i]);
      if (child == null) {
        child = new JsonObject();
        parent.put(parts[i], child);
      } else if (!(child instanceof JsonObject)) {
        throw new ConfigException("'" + fullKey + "' needs '" + parentPath + "' to be an object, but it is set to a value");
      }
      parent = (JsonObject) child;
    }
    String last = parts[parts.length - 1];
    String path = join(parentPath, last);
    Object given = value instanceof JsonObject object ? nest(object, path) : value;
    if (!parent.containsKey(last)) {
      parent.put(last, given);
    } else if (parent.getValue(last) instanceof JsonObject existing && given instanceof JsonObject more) {
      more.forEach(entry -> put(existing, path, entry.getKey(), entry.getValue()));
    } else {
      throw new ConfigException("'" + path + "' is given twice (dotted and nested); keep one");
    }
  }

  private static String join(String prefix, String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }
}
