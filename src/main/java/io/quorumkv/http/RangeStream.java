package io.quorumkv.http;

import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * Streams one range scan into a chunked response, one chunk per record ({@code key \n value}).
 * Batches come from a storage worker; the next batch is fetched only while the response's
 * write queue has room, so a slow reader pauses the scan instead of filling the heap.
 * Runs on the request's event loop; the cursor is closed however the stream ends.
 */
final class RangeStream {
  private static final System.Logger LOG = System.getLogger(RangeStream.class.getName());
  static final int BATCH_RECORDS = 256;
  static final int BATCH_BYTES = 256 * 1024;

  private final StorageService storage;
  private final HttpServerResponse response;
  private final RangeCursor cursor;
  private boolean fetching;
  private boolean finished;

  RangeStream(StorageService storage, HttpServerResponse response, RangeCursor cursor) {
    this.storage = storage;
    this.response = response;
    this.cursor = cursor;
  }

  void start() {
    response.closeHandler(closed -> {
      if (!fetching) {
        finish();
      }
    });
    fetchNext();
  }

  private void fetchNext() {
    if (finished) {
      return;
    }
    fetching = true;
    storage.nextBatch(cursor, BATCH_RECORDS, BATCH_BYTES).onComplete(next -> {
      fetching = false;
      if (finished || response.closed()) {
        finish();
        return;
      }
      if (next.failed()) {
        LOG.log(System.Logger.Level.WARNING, "range scan failed, connection reset: " + next.cause().getMessage());
        response.reset();
        finish();
        return;
      }
      for (RangeEntry entry : next.result().entries()) {
        response.write(chunkOf(entry));
      }
      if (next.result().last()) {
        response.end();
        finish();
      } else if (response.writeQueueFull()) {
        response.drainHandler(drained -> {
          response.drainHandler(null);
          fetchNext();
        });
      } else {
        fetchNext();
      }
    });
  }

  private static Buffer chunkOf(RangeEntry entry) {
    return Buffer.buffer(entry.key().length + 1 + entry.value().length)
        .appendBytes(entry.key())
        .appendByte((byte) '\n')
        .appendBytes(entry.value());
  }

  private void finish() {
    if (!finished) {
      finished = true;
      storage.closeRange(cursor);
    }
  }
}
