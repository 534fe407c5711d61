package io.quorumkv.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The samples of a Prometheus text exposition ({@code GET /metrics}): one per line that is not a
 * comment, {@code name{label="value",...} value [timestamp]}. Label values may hold {@code \\},
 * {@code \"} and {@code \n} escapes; values may be {@code NaN} or {@code +Inf}. A line it cannot
 * read is an IllegalArgumentException naming it.
 */
final class PrometheusText {
  /** One sample: a series' name, its labels, its value. */
  record Sample(String name, Map<String, String> labels, double value) {
    String label(String label) {
      return labels.getOrDefault(label, "");
    }
  }

  private final List<Sample> samples;

  private PrometheusText(List<Sample> samples) {
    this.samples = samples;
  }

  static PrometheusText parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
        samples.add(sample(trimmed));
      }
    }
    return new PrometheusText(samples);
  }

  List<Sample> samples(String name) {
    return samples.stream().filter(sample -> sample.name().equals(name)).toList();
  }

  /** The sum of the series' samples that {@code filter} lets through; 0 for none. */
  double sum(String name, Predicate<Sample> filter) {
    return samples(name).stream().filter(filter).mapToDouble(Sample::value).filter(value -> !Double.isNaN(value)).sum();
  }

  double sum(String name) {
    return sum(name, sample -> true);
  }

  /** Whether the exposition has the series at all (a node may not export it). */
  boolean has(String name) {
    return samples.stream().anyMatch(sample -> sample.name().equals(name));
  }

  private static Sample sample(String line) {
    int nameEnd = 0;
    while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && !Character.isWhitespace(line.charAt(nameEnd))) {
      nameEnd++;
    }
    String name = line.substring(0, nameEnd);
    Map<String, String> labels = new LinkedHashMap<>();
    int at = nameEnd;
    if (at < line.length() && line.charAt(at) == '{') {
      at = labels(line, at + 1, labels);
    }
    String[] rest = line.substring(at).strip().split("\\s+");
    if (name.isEmpty() || rest.length == 0 || rest[0].isEmpty()) {
      throw new IllegalArgumentException("not a metrics line: " + line);
    }
    return new Sample(name, labels, value(rest[0], line));
  }

  /** Reads {@code a="x",b="y"}} from {@code at} into {@code labels}; returns the index after the closing brace. */
  private static int labels(String line, int at, Map<String, String> labels) {
    while (true) {
      while (at < line.length() && (line.charAt(at) == ',' || line.charAt(at) == ' ')) {
        at++;
      }
      if (at < line.length() && line.charAt(at) == '}') {
        return at + 1;
      }
      int equals = line.indexOf('=', at);
      if (equals < 0 || equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
        throw new IllegalArgumentException("not a metrics line: " + line);
      }
      String label = line.substring(at, equals).strip();
      StringBuilder value = new StringBuilder();
      int i = equals + 2;
      for (; i < line.length() && line.charAt(i) != '"'; i++) {
        char c = line.charAt(i);
        if (c == '\\' && i + 1 < line.length()) {
          char escaped = line.charAt(++i);
          value.append(escaped == 'n' ? '\n' : escaped);
        } else {
          value.append(c);
        }
      }
      if (i >= line.length()) {
        throw new IllegalArgumentException("not a metrics line: " + line);
      }
      labels.put(label, value.toString());
      at = i + 1;
    }
  }

  private static double value(String text, String line) {
    return switch (text) {
      case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        try {
          yield Double.parseDouble(text);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a metrics line: " + line);
        }
      }
    };
  }
}
