package io.quorumkv.bench;

import java.util.concurrent.Callable;

/** A storage task and, once run, its outcome; travels the event bus by reference (see {@link EventBusExecutor}). */
final class StorageTask<T> {
  private final Callable<T> work;
  private T result;
  private Throwable failure;

  StorageTask(Callable<T> work) {
    this.work = work;
  }

  void run() {
    try {
      result = work.call();
    } catch (Throwable t) {
      failure = t;
    }
  }

  T result() {
    return result;
  }

  Throwable failure() {
    return failure;
  }
}
