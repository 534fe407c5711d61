package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;

import java.util.ArrayDeque;

/**
 * This node's own store as a {@link RangeSource}: a cursor read a batch at a time on a storage
 * worker, the next batch fetched once the buffered one runs low, so at most about two batches
 * are held. The cursor is closed at the end of the scan or on {@link #close()}, whichever is first.
 */
final class LocalRangeSource implements RangeSource {
  static final int BATCH_RECORDS = 256;
  static final int BATCH_BYTES = 256 * 1024;
  private static final int LOW_WATER_RECORDS = BATCH_RECORDS / 4;

  private final NodeUrl self;
  private final StorageService storage;
  private final byte[] start;
  private final byte[] end;
  private final ArrayDeque<RangeEntry> buffered = new ArrayDeque<>();
  private Listener listener;
  private RangeCursor cursor;
  private boolean opening;
  private boolean fetching;
  private boolean last;
  private boolean started;
  private boolean closed;
  private boolean failed;

  LocalRangeSource(NodeUrl self, StorageService storage, byte[] start, byte[] end) {
    this.self = self;
    this.storage = storage;
    this.start = start;
    this.end = end;
  }

  @Override
  public NodeUrl node() {
    return self;
  }

  @Override
  public void start(Listener listener) {
    this.listener = listener;
    opening = true;
    storage.openRange(start, end).onComplete(opened -> {
      opening = false;
      if (opened.succeeded()) {
        cursor = opened.result();
      }
      if (closed) {
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
      if (closed) {
        release();
        return;
      }
      if (next.failed()) {
        fail(next.cause());
        return;
      }
      RangeBatch batch = next.result();
      boolean wasEmpty = buffered.isEmpty();
      buffered.addAll(batch.entries());
      last = batch.last();
      started = true;
      if (last) {
        release();
      }
      if (buffered.isEmpty() && !last) {
        fetch(); // a stretch of the store with nothing in range left; keep scanning
      } else if (wasEmpty) {
        listener.ready();
      }
    });
  }

  @Override
  public RangeEntry peek() {
    return buffered.peek();
  }

  @Override
  public RangeEntry poll() {
    RangeEntry entry = buffered.poll();
    if (buffered.size() <= LOW_WATER_RECORDS && !last && !fetching && !closed && !failed) {
      fetch();
    }
    return entry;
  }

  @Override
  public boolean exhausted() {
    return last && buffered.isEmpty();
  }

  @Override
  public boolean started() {
    return started;
  }

  private void fail(Throwable cause) {
    failed = true;
    release();
    String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    listener.failed(this, new RangeSourceException(self + " (this node): " + message));
  }

  @Override
  public void close() {
    closed = true;
    buffered.clear();
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
}
