package io.quorumkv.storage;

import io.vertx.core.Future;

import java.util.concurrent.Callable;

/**
 * Runs a blocking storage task on a storage worker verticle and completes the returned Future
 * on the caller's context, so an event loop never runs RocksDB code and never waits for it.
 */
public interface StorageExecutor {
  <T> Future<T> submit(Callable<T> task);
}
