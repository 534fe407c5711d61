package io.quorumkv.storage;

import io.vertx.core.Future;

/** Watches storage operations, for metrics. */
public interface StorageObserver {
  /** Returns {@code pending}, having arranged to time it under {@code operation}. */
  <T> Future<T> timeStorage(String operation, Future<T> pending);
}
