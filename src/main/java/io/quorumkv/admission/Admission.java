package io.quorumkv.admission;

import io.quorumkv.storage.LargeValueSizes;

import io.quorumkv.config.AdmissionConfig;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * A node's bounds on what it takes on at once, and the count of requests it refused for each.
 * Shared by all its event loops and workers.
 */
public final class Admission {
  /** Why a request was refused. */
  public enum Reason {
    /** Client request bodies in memory would pass their budget. */
    MEMORY,
    /** The node already has its bound of client requests in flight. */
    IN_FLIGHT,
    /** Storage reads and writes waiting for a worker are past their bound. */
    STORAGE;

    /** The lower-case name used in metrics and JSON. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Client bodies default to this share of the heap, and so does the peers' reserve. */
  static final int HEAP_SHARE_DIVISOR = 8;
  /** The client bodies' default budget never takes more than this share of the heap. */
  static final int HEAP_SHARE_DIVISOR_AT_MOST = 4;
  /**
   * Bytes a value at the size limit holds in the client budget while it is written and read back at
   * once: the write's (its body, or its trailing replica write: the value and one encoding) and the
   * read's (the value and the copy it was decoded from), each twice the value.
   */
  static final int BUDGETED_COPIES_OF_A_WRITE_AND_ITS_READ = 4;

  private final ByteBudget clientBodies;
  private final ByteBudget peerBatches;
  private final int maxRequestsPerLoop;
  private final int maxQueuedStorage;
  private final IntSupplier queuedStorage;
  /** One per event loop; a new array when a loop is added, so a request reads it without a lock or an iterator. */
  private volatile LoopRequests[] loops = new LoopRequests[0];
  private final LargeValueSizes largeValues;
  private final Map<Reason, LongAdder> shed = new EnumMap<>(Reason.class);

  /**
   * @param maxRequestsPerLoop each event loop's share of the client requests the node has in flight; 0 for no bound
   * @param maxQueuedStorage   storage requests waiting for a worker ({@code queuedStorage}); 0 for no bound
   */
  public Admission(long clientBodyBytes, long peerBatchBytes, int maxRequestsPerLoop, int maxQueuedStorage,
                   IntSupplier queuedStorage, LargeValueSizes largeValues) {
    this.largeValues = largeValues;
    this.clientBodies = new ByteBudget(clientBodyBytes);
    this.peerBatches = new ByteBudget(peerBatchBytes);
    this.maxRequestsPerLoop = maxRequestsPerLoop;
    this.maxQueuedStorage = maxQueuedStorage;
    this.queuedStorage = queuedStorage;
    for (Reason reason : Reason.values()) {
      shed.put(reason, new LongAdder());
    }
  }

  /**
   * The bounds a conf's {@code admission} section sets, with budgets sized from this JVM's heap and
   * the largest body a request may carry.
   */
  public static Admission of(AdmissionConfig config, long maxBodyBytes, IntSupplier queuedStorage,
                             LargeValueSizes largeValues) {
    long heap = Runtime.getRuntime().maxMemory();
    long clientBodies = config.clientBodyBytes() > 0 ? config.clientBodyBytes()
        : defaultClientBodyBytes(heap, maxBodyBytes);
    return forHeap(heap, clientBodies, config.maxRequestsPerLoop(), config.maxQueuedStorage(), queuedStorage,
        largeValues);
  }

  /**
   * The client budget when the conf sets none: an eighth of the heap, raised to what a value at the
   * size limit needs to be written and read back at once, but never past a quarter of the heap. At
   * the scripts' 256 MiB and the default 16 MiB limit: 64 MiB, where an eighth (32 MiB) held the
   * write's last replica write alone and a read of the value just written got 503.
   */
  static long defaultClientBodyBytes(long maxHeapBytes, long maxBodyBytes) {
    long writeAndRead = maxBodyBytes * BUDGETED_COPIES_OF_A_WRITE_AND_ITS_READ;
    return Math.min(Math.max(maxHeapBytes / HEAP_SHARE_DIVISOR, writeAndRead),
        maxHeapBytes / HEAP_SHARE_DIVISOR_AT_MOST);
  }

  /**
   * Budgets sized from the heap (an eighth of it for peers' batches, and for client bodies unless
   * {@code clientBodyBytes} is positive) and the given bounds on requests.
   */
  public static Admission forHeap(long maxHeapBytes, long clientBodyBytes, int maxRequestsPerLoop,
                                  int maxQueuedStorage, IntSupplier queuedStorage, LargeValueSizes largeValues) {
    long share = Math.max(1, maxHeapBytes / HEAP_SHARE_DIVISOR);
    return new Admission(clientBodyBytes > 0 ? clientBodyBytes : share, share, maxRequestsPerLoop, maxQueuedStorage,
        queuedStorage, largeValues);
  }

  /** Bodies of client requests, and large values read for clients, refused when full. */
  public ByteBudget clientBodies() {
    return clientBodies;
  }

  /** Sizes of the large values last written or read through this node (the storage's). */
  public LargeValueSizes largeValues() {
    return largeValues;
  }

  /**
   * Replica batches, records and forwarded conditional writes from peers: work another node
   * already admitted, never refused; a batch stream is read more slowly while it is full.
   */
  public ByteBudget peerBatches() {
    return peerBatches;
  }

  /** The in-flight count of one more event loop, adding its share to the node's bound; use it on that loop only. */
  public synchronized LoopRequests newLoop() {
    LoopRequests loop = new LoopRequests();
    LoopRequests[] more = Arrays.copyOf(loops, loops.length + 1);
    more[loops.length] = loop;
    loops = more;
    return loop;
  }

  /**
   * Admits a client request on {@code loop} (which then counts it until {@link LoopRequests#finish}),
   * or returns why not; whoever answers the refusal counts it ({@link #shed}). The bound is the
   * node's, its loops' shares together: connections are not spread evenly over the loops, and a
   * burst on one loop while the others are idle is not overload. (Two loops may both pass it at its
   * last place: it is a bound on queueing, not an exact count.)
   */
  public Reason admit(LoopRequests loop) {
    Reason refused = refusal();
    if (refused == null) {
      loop.start();
    }
    return refused;
  }

  private Reason refusal() {
    if (maxQueuedStorage > 0 && queuedStorage.getAsInt() > maxQueuedStorage) {
      return Reason.STORAGE;
    }
    if (maxRequestsPerLoop > 0 && requestsInFlight() >= maxRequestsInFlight()) {
      return Reason.IN_FLIGHT;
    }
    return null;
  }

  /** The node's bound on client requests in flight: each event loop's share together. */
  public int maxRequestsInFlight() {
    return maxRequestsPerLoop * loops.length;
  }

  public int maxQueuedStorage() {
    return maxQueuedStorage;
  }

  /** Client requests in flight on all event loops. */
  public int requestsInFlight() {
    int sum = 0;
    for (LoopRequests loop : loops) {
      sum += loop.inFlight();
    }
    return sum;
  }

  public void shed(Reason reason) {
    shed.get(reason).increment();
  }

  /** Requests refused for {@code reason} since the node started. */
  public long shedCount(Reason reason) {
    return shed.get(reason).sum();
  }
}
