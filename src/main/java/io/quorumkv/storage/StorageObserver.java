package io.quorumkv.storage;

import io.vertx.core.Future;

/** Watches storage operations, for metrics. */
public interface StorageObserver {
  /** Returns {@code pending}, having arranged to time it under {@code operation}. */
  <T> Future<T> timeStorage(String operation, Future<T> pending);

  /**
   * An event loop tried to apply a group of {@code writes} itself ({@link Store#tryApplyAll}) for
   * {@code nanos}: {@code applied}, or handed to a worker (a lock held, a record only on disk, a stall).
   */
  default void loopWrite(int writes, long nanos, boolean applied) {
  }
}
