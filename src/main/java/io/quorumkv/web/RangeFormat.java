package io.quorumkv.web;

import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;

/** What a {@link RangeStream} reads from the store and how it puts it on the wire: one per response. */
public interface RangeFormat {

  Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes);

  void write(HttpServerResponse response, List<RangeEntry> entries);

  /** Ends the response after the last batch. */
  void end(HttpServerResponse response);
}
