package io.quorumkv.support;

import io.quorumkv.storage.Hint;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.Store;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A store whose writes can be held back: while the gate is closed, {@link #apply} waits (on its
 * storage worker) until the gate opens, as a replica slow to accept writes would.
 */
public final class GatedStore implements Store {
  private final Store delegate;
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile int heldWrites;

  public GatedStore(Store delegate) {
    this.delegate = delegate;
  }

  public void closeGate() {
    gate = new CountDownLatch(1);
  }

  public void openGate() {
    gate.countDown();
  }

  /** Writes waiting at the closed gate right now. */
  public int heldWrites() {
    return heldWrites;
  }

  @Override
  public boolean apply(byte[] key, Record record) {
    CountDownLatch current = gate;
    if (current.getCount() > 0) {
      heldWrites++;
      try {
        if (!current.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        heldWrites--;
      }
    }
    return delegate.apply(key, record);
  }

  @Override
  public Record get(byte[] key) {
    return delegate.get(key);
  }

  @Override
  public RangeCursor range(byte[] start, byte[] end) {
    return delegate.range(start, end);
  }

  @Override
  public PurgeSweep.Step purge(byte[] from, int maxKeys, long nowMillis, long graceMillis) {
    return delegate.purge(from, maxKeys, nowMillis, graceMillis);
  }

  @Override
  public void putHint(Hint hint) {
    delegate.putHint(hint);
  }

  @Override
  public List<Hint> hints(String target, long afterSequence, int limit) {
    return delegate.hints(target, afterSequence, limit);
  }

  @Override
  public long dropHintsBefore(String target, long sequence) {
    return delegate.dropHintsBefore(target, sequence);
  }

  @Override
  public void deleteHint(String target, long sequence) {
    delegate.deleteHint(target, sequence);
  }

  @Override
  public Map<String, Long> countHints() {
    return delegate.countHints();
  }

  @Override
  public Map<String, Long> engineStats() {
    return delegate.engineStats();
  }

  @Override
  public long readClockBound() {
    return delegate.readClockBound();
  }

  @Override
  public void writeClockBound(long bound) {
    delegate.writeClockBound(bound);
  }

  @Override
  public void close() {
    openGate();
    delegate.close();
  }
}
