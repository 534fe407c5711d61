package io.quorumkv.support;

import io.quorumkv.storage.Record;
import io.quorumkv.storage.Store;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose writes can be held back: while the gate is closed, {@link #apply} and
 * {@link #applyAll} wait (on their storage worker) until the gate opens, as a replica slow to
 * accept writes would. It also counts the write groups it passed on, to show group commit at work.
 */
public final class GatedStore extends DelegatingStore {
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private final AtomicInteger heldWrites = new AtomicInteger();
  private final AtomicInteger writeCalls = new AtomicInteger();
  private final AtomicInteger largestWriteGroup = new AtomicInteger();

  public GatedStore(Store delegate) {
    super(delegate);
  }

  public void closeGate() {
    gate = new CountDownLatch(1);
  }

  public void openGate() {
    gate.countDown();
  }

  /** Write calls waiting at the closed gate right now. */
  public int heldWrites() {
    return heldWrites.get();
  }

  /** Write calls (single or grouped) passed to the store so far. */
  public int writeCalls() {
    return writeCalls.get();
  }

  /** The most records one write call carried. */
  public int largestWriteGroup() {
    return largestWriteGroup.get();
  }

  @Override
  public Record apply(byte[] key, Record record) {
    passGate(1);
    return super.apply(key, record);
  }

  @Override
  public List<Record> applyAll(List<byte[]> keys, List<Record> records) {
    passGate(keys.size());
    return super.applyAll(keys, records);
  }

  private void passGate(int records) {
    CountDownLatch current = gate;
    if (current.getCount() > 0) {
      heldWrites.incrementAndGet();
      try {
        if (!current.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        heldWrites.decrementAndGet();
      }
    }
    writeCalls.incrementAndGet();
    largestWriteGroup.accumulateAndGet(records, Math::max);
  }

  @Override
  public void close() {
    openGate();
    super.close();
  }
}
