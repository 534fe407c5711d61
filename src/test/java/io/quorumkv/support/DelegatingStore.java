package io.quorumkv.support;

import io.quorumkv.storage.PurgeGate;
import io.quorumkv.storage.PurgeSweep;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.Record;
import io.quorumkv.storage.Store;

import java.util.List;

/**
 * A store that forwards every call, the grouped ones included, to the store it wraps: the base
 * of the test layers, which override only what they change. Forwarding {@link #getAll} and
 * {@link #applyAll} matters: the interface's defaults would split a group into single calls.
 * {@link #getCached} is not forwarded: every read of a layer reaches {@link #get}, where it can be
 * held or failed.
 */
public class DelegatingStore implements Store {
  private final Store delegate;

  public DelegatingStore(Store delegate) {
    this.delegate = delegate;
  }

  @Override
  public Record get(byte[] key) {
    return delegate.get(key);
  }

  @Override
  public Record apply(byte[] key, Record record) {
    return delegate.apply(key, record);
  }

  @Override
  public List<Record> getAll(List<byte[]> keys) {
    return delegate.getAll(keys);
  }

  @Override
  public List<Record> applyAll(List<byte[]> keys, List<Record> records) {
    return delegate.applyAll(keys, records);
  }

  @Override
  public RangeCursor range(byte[] start, byte[] end) {
    return delegate.range(start, end);
  }

  @Override
  public PurgeSweep.Step purge(byte[] from, int maxKeys, long nowMillis, long graceMillis, PurgeGate gate) {
    return delegate.purge(from, maxKeys, nowMillis, graceMillis, gate);
  }

  @Override
  public PurgeSweep.Step drop(byte[] from, int maxKeys, java.util.function.BiPredicate<byte[], Record> unwanted) {
    return delegate.drop(from, maxKeys, unwanted);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
