package io.quorumkv.backup;

import io.vertx.core.json.JsonObject;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** A restore's tally: records stored, records the cluster already held newer, records deleted by a rollback, failures. */
final class RestoreCounts {
  final AtomicLong stored = new AtomicLong();
  final AtomicLong newer = new AtomicLong();
  final AtomicLong deleted = new AtomicLong();
  final AtomicLong failed = new AtomicLong();

  JsonObject toJson() {
    return new JsonObject().put("stored", stored.get()).put("newer", newer.get()).put("deleted", deleted.get());
  }

  static RestoreCounts fromJson(JsonObject json) {
    RestoreCounts counts = new RestoreCounts();
    counts.stored.set(json.getLong("stored"));
    counts.newer.set(json.getLong("newer"));
    counts.deleted.set(json.getLong("deleted"));
    return counts;
  }

  RestoreCounts copy() {
    RestoreCounts copy = fromJson(toJson());
    copy.failed.set(failed.get());
    return copy;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%,d records sent, %,d already newer in the cluster, %s%,d failed", stored.get(),
        newer.get(), deleted.get() > 0 ? String.format(Locale.ROOT, "%,d deleted, ", deleted.get()) : "", failed.get());
  }
}
