package io.quorumkv.web;

import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.StorageService;
import io.vertx.core.http.HttpServerResponse;

/**
 * Streams one range scan into a chunked response, in a {@link RangeFormat} (the public range's
 * chunk per record, or the internal stream of every record for a cluster-wide range). Batches
 * come from a storage worker; the next batch is fetched only while the response's write queue
 * has room, so a slow reader pauses the scan instead of filling the heap.
 * Runs on the request's event loop; the cursor is closed however the stream ends.
 */
public final class RangeStream {
  private static final System.Logger LOG = System.getLogger(RangeStream.class.getName());
  public static final int BATCH_RECORDS = 256;
  public static final int BATCH_BYTES = 256 * 1024;

  private final StorageService storage;
  private final HttpServerResponse response;
  private final RangeCursor cursor;
  private final RangeFormat format;
  private boolean fetching;
  private boolean finished;

  public RangeStream(StorageService storage, HttpServerResponse response, RangeCursor cursor, RangeFormat format) {
    this.storage = storage;
    this.response = response;
    this.cursor = cursor;
    this.format = format;
  }

  public void start() {
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
    format.next(storage, cursor, BATCH_RECORDS, BATCH_BYTES).onComplete(next -> {
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
      format.write(response, next.result().entries());
      if (next.result().last()) {
        format.end(response);
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

  private void finish() {
    if (!finished) {
      finished = true;
      storage.closeRange(cursor);
    }
  }
}
