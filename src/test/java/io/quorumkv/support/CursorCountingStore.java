package io.quorumkv.support;

import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.Store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
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
    return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
        (proxy, method, args) -> {
          Object result = invoke(store, method, args);
          if (method.getName().equals("range")) {
            opened.incrementAndGet();
            open.incrementAndGet();
            return counted((RangeCursor) result);
          }
          return result;
        });
  }

  private RangeCursor counted(RangeCursor cursor) {
    AtomicBoolean closed = new AtomicBoolean();
    return (RangeCursor) Proxy.newProxyInstance(RangeCursor.class.getClassLoader(), new Class<?>[] {RangeCursor.class},
        (proxy, method, args) -> {
          if (method.getName().equals("close") && closed.compareAndSet(false, true)) {
            open.decrementAndGet();
          }
          return invoke(cursor, method, args);
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
