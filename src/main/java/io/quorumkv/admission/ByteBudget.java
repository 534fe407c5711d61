package io.quorumkv.admission;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A bound on the bytes held at once by one kind of work. Thread-safe; every byte taken is given
 * back with {@link #release}.
 */
public final class ByteBudget {
  private final long limitBytes;
  private final AtomicLong used = new AtomicLong();

  public ByteBudget(long limitBytes) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("a budget of " + limitBytes + " bytes");
    }
    this.limitBytes = limitBytes;
  }

  /**
   * Takes {@code bytes} if they fit, or if nothing is held: one request larger than the whole
   * budget (a value at the size limit on a small heap) still runs, alone.
   */
  public boolean tryAcquire(long bytes) {
    while (true) {
      long held = used.get();
      if (held > 0 && held + bytes > limitBytes) {
        return false;
      }
      if (used.compareAndSet(held, held + bytes)) {
        return true;
      }
    }
  }

  /** Takes {@code bytes} whatever the budget, for work that must not be refused; true if it is now over its limit. */
  public boolean acquire(long bytes) {
    return used.addAndGet(bytes) > limitBytes;
  }

  public void release(long bytes) {
    used.addAndGet(-bytes);
  }

  /** Whether more is held than the limit (only {@link #acquire} goes past it). */
  public boolean over() {
    return used.get() > limitBytes;
  }

  public long used() {
    return used.get();
  }

  public long limit() {
    return limitBytes;
  }
}
