package io.quorumkv.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures an operator looks at first, out of a node's {@code /metrics}: requests by method and
 * status with their p50 and p99 (from the response-time histograms, since the node started),
 * requests in flight, storage, hints, read repairs, anti-entropy, the JVM heap and the alarms
 * raised. As JSON; a series the node does not export reads as 0.
 */
final class MetricsSummary {
  static final String REQUESTS = "vertx_http_server_requests_total";
  static final String RESPONSE_TIME = "vertx_http_server_response_time_seconds_bucket";

  private MetricsSummary() {
  }

  static JsonObject of(String node, PrometheusText metrics) {
    return new JsonObject()
        .put("node", node)
        .put("requests", requests(metrics))
        .put("inFlight", (long) metrics.sum("quorumkv_client_requests_in_flight"))
        .put("storage", new JsonObject()
            .put("sstBytes", (long) metrics.sum("quorumkv_rocksdb_total_sst_files_size"))
            .put("memtableBytes", (long) metrics.sum("quorumkv_rocksdb_cur_size_all_mem_tables"))
            .put("pendingCompactionBytes", (long) metrics.sum("quorumkv_rocksdb_estimate_pending_compaction_bytes"))
            .put("keysEstimate", (long) metrics.sum("quorumkv_rocksdb_estimate_num_keys"))
            .put("queued", (long) metrics.sum("quorumkv_storage_queued")))
        .put("hints", new JsonObject()
            .put("pending", (long) metrics.sum("quorumkv_hints_pending"))
            .put("stored", (long) metrics.sum("quorumkv_hints_stored_total"))
            .put("delivered", (long) metrics.sum("quorumkv_hints_delivered_total"))
            .put("dropped", (long) metrics.sum("quorumkv_hints_dropped_total")))
        .put("readRepairs", new JsonObject()
            .put("written", (long) metrics.sum("quorumkv_read_repairs_total"))
            .put("failed", (long) metrics.sum("quorumkv_read_repairs_failed_total")))
        .put("antiEntropy", new JsonObject()
            .put("exchangesCompleted", (long) metrics.sum("quorumkv_antientropy_exchanges_total",
                sample -> sample.label("outcome").equals("completed")))
            .put("exchangesFailed", (long) metrics.sum("quorumkv_antientropy_exchanges_total",
                sample -> sample.label("outcome").equals("failed")))
            .put("keysRepaired", (long) metrics.sum("quorumkv_antientropy_keys_repaired_total")))
        .put("jvm", new JsonObject()
            .put("heapUsedBytes", (long) metrics.sum("jvm_memory_used_bytes", sample -> sample.label("area").equals("heap")))
            .put("heapMaxBytes", (long) metrics.sum("jvm_memory_max_bytes",
                sample -> sample.label("area").equals("heap") && sample.value() > 0)))
        .put("alarms", new JsonArray(metrics.samples("quorumkv_alarm").stream()
            .filter(sample -> sample.value() > 0).map(sample -> sample.label("kind")).toList()));
  }

  /** One entry per method and status, in that order: the count and, where a histogram has them, p50 and p99 in ms. */
  private static JsonArray requests(PrometheusText metrics) {
    Map<String, Long> counts = new TreeMap<>();
    for (PrometheusText.Sample sample : metrics.samples(REQUESTS)) {
      counts.merge(sample.label("method") + " " + sample.label("code"), (long) sample.value(), Long::sum);
    }
    Map<String, Map<Double, Double>> buckets = new TreeMap<>();
    for (PrometheusText.Sample sample : metrics.samples(RESPONSE_TIME)) {
      buckets.computeIfAbsent(sample.label("method") + " " + sample.label("code"), key -> new TreeMap<>())
          .merge(Double.parseDouble(sample.label("le").replace("+Inf", "Infinity")), sample.value(), Double::sum);
    }
    JsonArray requests = new JsonArray();
    counts.forEach((key, count) -> {
      String[] methodAndStatus = key.split(" ", 2);
      JsonObject entry = new JsonObject().put("method", methodAndStatus[0]).put("status", methodAndStatus[1])
          .put("count", count);
      Map<Double, Double> histogram = buckets.get(key);
      if (histogram != null) {
        entry.put("p50Ms", millis(quantile(histogram, 0.5))).put("p99Ms", millis(quantile(histogram, 0.99)));
      }
      requests.add(entry);
    });
    return requests;
  }

  /**
   * The {@code q} quantile of a cumulative histogram (upper bound to count), interpolated within its
   * bucket as Prometheus' {@code histogram_quantile} does; NaN for an empty one, and the highest
   * finite bound when the quantile falls in the last, open bucket.
   */
  static double quantile(Map<Double, Double> cumulative, double q) {
    List<Map.Entry<Double, Double>> bounds = List.copyOf(new TreeMap<>(cumulative).entrySet());
    if (bounds.isEmpty()) {
      return Double.NaN;
    }
    double total = bounds.get(bounds.size() - 1).getValue();
    if (total <= 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lower = 0;
    double below = 0;
    for (Map.Entry<Double, Double> bound : bounds) {
      if (bound.getValue() >= rank) {
        if (Double.isInfinite(bound.getKey())) {
          return lower;
        }
        double inBucket = bound.getValue() - below;
        return inBucket <= 0 ? bound.getKey() : lower + (bound.getKey() - lower) * (rank - below) / inBucket;
      }
      lower = bound.getKey();
      below = bound.getValue();
    }
    return lower;
  }

  private static Double millis(double seconds) {
    return Double.isNaN(seconds) ? null : Math.round(seconds * 1_000_000) / 1_000.0;
  }
}
