package io.quorumkv.cli;

import io.vertx.core.json.JsonObject;

import java.util.List;

/** {@code admin metrics}: a short summary of one node's {@code /metrics}, the first of the urls that answers. */
final class MetricsSubcommand implements Subcommand {
  @Override
  public String name() {
    return "metrics";
  }

  @Override
  public String synopsis() {
    return "metrics                 one node's metrics in short: requests, latency, storage, hints, repairs, heap";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    Subcommands.noArguments(arguments);
    JsonObject summary = Subcommands.metricsSummary(client.send("GET", "/metrics", NodeClient.DEFAULT_TIMEOUT, 200));
    output.json(summary);
    output.line("metrics of " + summary.getString("node") + " (counts and latencies since it started)");
    List<JsonObject> requests = Subcommands.objects(summary.getJsonArray("requests"));
    if (requests.isEmpty()) {
      output.line("no request served yet");
    } else {
      output.table(List.of("METHOD", "STATUS", "REQUESTS", "P50 MS", "P99 MS"), requests.stream()
          .map(entry -> List.of(entry.getString("method"), entry.getString("status"),
              String.valueOf(entry.getLong("count")), figure(entry.getValue("p50Ms")), figure(entry.getValue("p99Ms"))))
          .toList());
    }
    JsonObject storage = summary.getJsonObject("storage");
    JsonObject hints = summary.getJsonObject("hints");
    JsonObject readRepairs = summary.getJsonObject("readRepairs");
    JsonObject antiEntropy = summary.getJsonObject("antiEntropy");
    JsonObject jvm = summary.getJsonObject("jvm");
    output.line("");
    List.of(
        List.of("in flight", summary.getLong("inFlight") + " client requests"),
        List.of("storage", Subcommands.bytes(storage.getLong("sstBytes")) + " on disk, "
            + Subcommands.bytes(storage.getLong("memtableBytes")) + " in memtables, "
            + Subcommands.bytes(storage.getLong("pendingCompactionBytes")) + " pending compaction, ~"
            + storage.getLong("keysEstimate") + " keys, " + storage.getLong("queued") + " queued"),
        List.of("hints", hints.getLong("pending") + " pending, " + hints.getLong("stored") + " stored, "
            + hints.getLong("delivered") + " delivered, " + hints.getLong("dropped") + " dropped"),
        List.of("read repairs", readRepairs.getLong("written") + " written, " + readRepairs.getLong("failed") + " failed"),
        List.of("anti-entropy", antiEntropy.getLong("exchangesCompleted") + " exchanges completed, "
            + antiEntropy.getLong("exchangesFailed") + " failed, " + antiEntropy.getLong("keysRepaired") + " keys repaired"),
        List.of("jvm heap", Subcommands.bytes(jvm.getLong("heapUsedBytes")) + " used of "
            + Subcommands.bytes(jvm.getLong("heapMaxBytes"))),
        List.of("alarms", summary.getJsonArray("alarms").isEmpty() ? "none"
            : String.join(", ", summary.getJsonArray("alarms").stream().map(String::valueOf).toList())))
        .forEach(figures -> output.line(String.format("%-13s %s", figures.get(0) + ":", figures.get(1))));
  }

  private static String figure(Object millis) {
    return millis == null ? "-" : String.valueOf(millis);
  }
}
