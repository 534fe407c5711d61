package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;

/**
 * This node's own store as a {@link RangeSource}: a cursor read a batch at a time on a storage
 * worker, the next batch fetched once the buffered one runs low, so at most about two batches
 * are held. The cursor is closed at the end of the scan or on {@link #close()}, whichever is first.
 */
final class LocalRangeSource extends BufferedRangeSource {
  static final int BATCH_RECORDS = 256;
  static final int BATCH_BYTES = 256 * 1024;
  private static final int LOW_WATER_RECORDS = BATCH_RECORDS / 4;

  private final StorageService storage;
  private final byte[] start;
  private final byte[] end;
  private RangeCursor cursor;
  private boolean opening;
  private boolean fetching;

  LocalRangeSource(NodeUrl self, StorageService storage, byte[] start, byte[] end) {
    super(self);
    this.storage = storage;
    this.start = start;
    this.end = end;
  }

  @Override
  void open() {
    opening = true;
    storage.openRange(start, end).onComplete(opened -> {
      opening = false;
      if (opened.succeeded()) {
        cursor = opened.result();
      }
      if (closed()) {
        release();
      } else if (opened.failed()) {
        fail(opened.cause());
      } else {
        fetch();
      }
    });
  }

  private void fetch() {
    fetching = true;
    storage.nextRecords(cursor, BATCH_RECORDS, BATCH_BYTES).onComplete(next -> {
      fetching = false;
      if (closed()) {
        release();
        return;
      }
      if (next.failed()) {
        fail(next.cause());
        return;
      }
      RangeBatch batch = next.result();
      if (batch.last()) {
        release();
      }
      // A stretch of the store with nothing in range left: keep scanning (the listener hears nothing).
      boolean scanOn = !batch.last() && batch.entries().isEmpty() && bufferedRecords() == 0;
      arrived(batch.entries(), batch.last());
      if (scanOn) {
        fetch();
      }
    });
  }

  @Override
  void taken(RangeEntry entry) {
    if (bufferedRecords() <= LOW_WATER_RECORDS && !ended() && !fetching && live()) {
      fetch();
    }
  }

  private void fail(Throwable cause) {
    release();
    fail(describe(cause));
  }

  @Override
  void abandon() {
    if (!opening && !fetching) {
      release();
    }
  }

  /** Closes the cursor, once; never while a batch is being read from it. */
  private void release() {
    if (cursor != null) {
      storage.closeRange(cursor);
      cursor = null;
    }
  }

  @Override
  public String toString() {
    return super.toString() + " (this node)";
  }
}
