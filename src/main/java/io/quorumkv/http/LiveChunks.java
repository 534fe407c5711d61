package io.quorumkv.http;

import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.quorumkv.web.RangeFormat;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;

/** The public range's format: live records only, one chunk per record ({@code key \n value}). */
final class LiveChunks implements RangeFormat {
  @Override
  public Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes) {
    return storage.nextBatch(cursor, maxRecords, maxBytes);
  }

  @Override
  public void write(HttpServerResponse response, List<RangeEntry> entries) {
    for (RangeEntry entry : entries) {
      response.write(chunkOf(entry));
    }
  }

  @Override
  public void end(HttpServerResponse response) {
    response.end();
  }

  /** One record of the public range as its chunk: {@code key \n value}. */
  static Buffer chunkOf(RangeEntry entry) {
    return Buffer.buffer(entry.key().length + 1 + entry.value().length)
        .appendBytes(entry.key())
        .appendByte((byte) '\n')
        .appendBytes(entry.value());
  }
}
