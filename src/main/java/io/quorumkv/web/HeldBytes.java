package io.quorumkv.web;

import io.quorumkv.admission.ByteBudget;

/**
 * The bytes one request holds of a byte budget until its answer ends: its body, or a value it reads,
 * each counted by the copies of it on the heap at once. Used from the request's event loop only.
 */
public class HeldBytes {
  /**
   * A client's body is on the heap twice at once: itself and its encoding for RocksDB (its
   * copies to other replicas are sent from it, not copied).
   */
  public static final int HEAP_COPIES_PER_BODY = 2;

  private final ByteBudget budget;
  private final boolean refusable;
  private long held;

  /** @param refusable false for work another node already admitted (a peer's), which waits for room instead */
  public HeldBytes(ByteBudget budget, boolean refusable) {
    this.budget = budget;
    this.refusable = refusable;
  }

  /** Holds what a body of {@code bodyBytes} needs; false, holding nothing more, when it does not fit. */
  public final boolean holdBody(long bodyBytes) {
    return holdUpTo(bodyBytes * HEAP_COPIES_PER_BODY);
  }

  /** Grows the hold to {@code bytes}; false, holding nothing more, when a refusable hold does not fit. */
  protected final boolean holdUpTo(long bytes) {
    long more = bytes - held;
    if (more <= 0) {
      return true;
    }
    if (!refusable) {
      budget.acquire(more);
    } else if (!budget.tryAcquire(more)) {
      return false;
    }
    held += more;
    return true;
  }

  /** Gives back everything held; call once the answer has ended. */
  public final void release() {
    if (held > 0) {
      budget.release(held);
      held = 0;
    }
  }
}
