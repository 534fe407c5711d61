package io.quorumkv.range;

import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.RangeFormat;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;
import java.util.function.Predicate;

/**
 * The internal stream of {@link RangeProtocol}: every stored record (tombstones and expired ones
 * included) that {@code sent} takes, a batch per write, then the end frame counting them.
 */
public final class RecordFrames implements RangeFormat {
  private final Predicate<RangeEntry> sent;
  private long count;

  public RecordFrames(Predicate<RangeEntry> sent) {
    this.sent = sent;
  }

  /** Every stored record. */
  public static RecordFrames all() {
    return new RecordFrames(entry -> true);
  }

  @Override
  public Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes) {
    return storage.nextRecords(cursor, maxRecords, maxBytes);
  }

  @Override
  public void write(HttpServerResponse response, List<RangeEntry> entries) {
    List<RangeEntry> taken = entries.stream().filter(sent).toList();
    if (!taken.isEmpty()) {
      response.write(RangeProtocol.encodeRecords(taken));
      count += taken.size();
    }
  }

  @Override
  public void end(HttpServerResponse response) {
    response.end(RangeProtocol.encodeEnd(count));
  }
}
