package io.quorumkv.support;

import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.Store;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Wraps a store to count the range cursors it opened and the ones closed since, to catch leaked iterators. */
public final class CursorCountingStore {
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();

  /** Range cursors opened so far. */
  public int opened() {
    return opened.get();
  }

  /** Range cursors opened and not yet closed. */
  public int open() {
    return open.get();
  }

  /** The store layer to pass to {@link TestNode#start(io.quorumkv.config.NodeConfig, java.util.function.UnaryOperator)}. */
  public Store wrap(Store store) {
    return new DelegatingStore(store) {
      @Override
      public RangeCursor range(byte[] start, byte[] end) {
        RangeCursor cursor = super.range(start, end);
        opened.incrementAndGet();
        open.incrementAndGet();
        return counted(cursor);
      }
    };
  }

  private RangeCursor counted(RangeCursor cursor) {
    AtomicBoolean closed = new AtomicBoolean();
    return new RangeCursor() {
      @Override
      public RangeBatch next(int maxRecords, int maxBytes) {
        return cursor.next(maxRecords, maxBytes);
      }

      @Override
      public void close() {
        if (closed.compareAndSet(false, true)) {
          open.decrementAndGet();
        }
        cursor.close();
      }
    };
  }
}
