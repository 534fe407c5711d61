package io.quorumkv.admission;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A node's bounds on what it takes on at once, and the count of requests it refused for each.
 * Shared by all its event loops and workers.
 */
public final class Admission {
  /** Why a request was refused. */
  public enum Reason {
    /** Client request bodies in memory would pass their budget. */
    MEMORY;

    /** The lower-case name used in metrics and JSON. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Client bodies default to this share of the heap, and so does the peers' reserve. */
  static final int HEAP_SHARE_DIVISOR = 8;

  private final ByteBudget clientBodies;
  private final ByteBudget peerBatches;
  private final Map<Reason, LongAdder> shed = new EnumMap<>(Reason.class);

  public Admission(long clientBodyBytes, long peerBatchBytes) {
    this.clientBodies = new ByteBudget(clientBodyBytes);
    this.peerBatches = new ByteBudget(peerBatchBytes);
    for (Reason reason : Reason.values()) {
      shed.put(reason, new LongAdder());
    }
  }

  /** Budgets sized from the heap: an eighth of it for client bodies, another eighth for peers' batches. */
  public static Admission forHeap(long maxHeapBytes) {
    long share = Math.max(1, maxHeapBytes / HEAP_SHARE_DIVISOR);
    return new Admission(share, share);
  }

  /** Bodies of client requests, refused when full. */
  public ByteBudget clientBodies() {
    return clientBodies;
  }

  /**
   * Replica batches, records and forwarded conditional writes from peers: work another node
   * already admitted, never refused; a batch stream is read more slowly while it is full.
   */
  public ByteBudget peerBatches() {
    return peerBatches;
  }

  public void shed(Reason reason) {
    shed.get(reason).increment();
  }

  /** Requests refused for {@code reason} since the node started. */
  public long shedCount(Reason reason) {
    return shed.get(reason).sum();
  }
}
