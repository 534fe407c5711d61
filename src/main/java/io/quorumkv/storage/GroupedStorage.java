package io.quorumkv.storage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.PromiseInternal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Single-key gets and applies, grouped: the ones that arrive while a storage worker is busy
 * wait in a queue, and the worker takes them all at once, as one {@link Store#getAll} and one
 * {@link Store#applyAll} (one multi-get, one write batch and one WAL write: group commit).
 * Asked from an event loop, the drain is queued when the loop's turn ends, so the requests of
 * one turn make one group and wake a worker once; a lone request waits for nothing else.
 *
 * <p>Each calling thread (an event loop) queues into a lane of its own, given round robin: what
 * one event loop asks for in one go, such as the records of a replica batch, becomes one group
 * instead of being spread over several workers. A lane has up to as many drains queued or
 * running on the {@link StorageExecutor} as there are lanes (one a worker): with one, the
 * requests of a turn that ended while its drain ran waited for that drain and then their own,
 * and under steady load each event loop's connections fell into step behind one drain after
 * another. A drain takes up to {@link #MAX_GROUP} requests and queues the next drain behind the
 * other storage tasks instead of looping. Concurrent drains are safe: {@link Store#applyAll}
 * merges each key under its lock.
 */
public final class GroupedStorage {
  static final int MAX_GROUP = 128;

  private final Vertx vertx;
  private final Store store;
  private final StorageExecutor executor;
  private final LoopWrites loopWrites;
  private final Lane[] lanes;
  private final AtomicInteger lanesGiven = new AtomicInteger();
  /** Requests added to a lane and not yet taken by a worker. */
  private final AtomicInteger waiting = new AtomicInteger();
  private final ThreadLocal<Lane> callerLane;

  public GroupedStorage(Vertx vertx, Store store, StorageExecutor executor, int lanes, LoopWrites loopWrites) {
    this.vertx = vertx;
    this.store = store;
    this.executor = executor;
    this.loopWrites = loopWrites;
    this.lanes = new Lane[lanes];
    Arrays.setAll(this.lanes, i -> new Lane());
    this.callerLane = ThreadLocal.withInitial(() -> this.lanes[Math.floorMod(lanesGiven.getAndIncrement(), lanes)]);
  }

  public Future<Record> get(byte[] key) {
    return enqueue(new Pending<>(key, null, callerPromise()));
  }

  public Future<Record> apply(byte[] key, Record record) {
    return enqueue(new Pending<>(key, record, callerPromise()));
  }

  /** Requests waiting in the lanes for a worker to take their group. */
  public int queued() {
    return waiting.get();
  }

  private <T> PromiseInternal<T> callerPromise() {
    return ((ContextInternal) vertx.getOrCreateContext()).promise();
  }

  private <T> Future<T> enqueue(Pending<T> request) {
    callerLane.get().add(request);
    return request.promise.future();
  }

  /**
   * Reads each distinct key of a group once: many clients asking for one key at once (a hot value
   * of many megabytes) put its bytes on the heap once, not once each.
   */
  private List<Record> getDistinct(List<byte[]> keys) {
    if (keys.size() == 1) {
      return store.getAll(keys);
    }
    Map<ByteBuffer, Integer> slots = new HashMap<>();
    List<byte[]> distinct = new ArrayList<>(keys.size());
    int[] slotOf = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Integer slot = slots.putIfAbsent(ByteBuffer.wrap(keys.get(i)), distinct.size());
      if (slot == null) {
        slotOf[i] = distinct.size();
        distinct.add(keys.get(i));
      } else {
        slotOf[i] = slot;
      }
    }
    if (distinct.size() == keys.size()) {
      return store.getAll(keys);
    }
    List<Record> read = store.getAll(distinct);
    List<Record> results = new ArrayList<>(keys.size());
    for (int slot : slotOf) {
      results.add(read.get(slot));
    }
    return results;
  }

  /** A get (no record) or an apply waiting for its group. */
  private record Pending<T>(byte[] key, Record record, PromiseInternal<T> promise) {
  }

  private final class Lane {
    private final ConcurrentLinkedQueue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean turnEndDeferred = new AtomicBoolean();
    /** Drains queued or running. */
    private final AtomicInteger drains = new AtomicInteger();

    void add(Pending<?> request) {
      waiting.incrementAndGet();
      queue.add(request);
      if (turnEndDeferred.compareAndSet(false, true) && !TurnEnd.defer(this::atTurnEnd)) {
        atTurnEnd();
      }
    }

    private void atTurnEnd() {
      turnEndDeferred.set(false);
      if (loopWrites.enabled()) {
        writeOnLoop();
      }
      queueDrainIfRoom();
    }

    /**
     * Applies the small writes at the head of the queue here, on the event loop that asked for
     * them, when the store can do so without waiting ({@link Store#tryApplyAll}): no hand-off to a
     * worker and back. What it cannot apply goes back to the queue for a worker.
     */
    private void writeOnLoop() {
      List<Pending<Record>> applies = new ArrayList<>();
      int bytes = 0;
      Pending<?> head;
      while (applies.size() < LoopWrites.MAX_GROUP_WRITES && (head = queue.peek()) != null && head.record() != null
          && (bytes += sizeOf(head)) <= LoopWrites.MAX_GROUP_BYTES) {
        Pending<?> taken = queue.poll(); // a worker's drain may have taken the head meanwhile
        if (taken == null) {
          break;
        }
        waiting.decrementAndGet();
        if (taken.record() == null) {
          putBack(List.of(taken));
          break;
        }
        applies.add(uncheckedCast(taken));
      }
      if (applies.isEmpty()) {
        return;
      }
      long start = System.nanoTime();
      List<Record> kept;
      try {
        kept = store.tryApplyAll(applies.stream().map(Pending::key).toList(),
            applies.stream().map(Pending::record).toList());
      } catch (RuntimeException failed) {
        kept = null; // a worker applies them again (a merge, so a write already made changes nothing) and answers
      }
      loopWrites.observe(applies.size(), System.nanoTime() - start, kept != null);
      if (kept == null) {
        putBack(applies);
        return;
      }
      List<Record> answers = kept;
      answer(applies, i -> applies.get(i).promise().tryComplete(answers.get(i)));
    }

    private void putBack(List<? extends Pending<?>> requests) {
      for (Pending<?> request : requests) {
        waiting.incrementAndGet();
        queue.add(request);
      }
    }

    /**
     * Queues a drain when requests wait and the lane has room for one more. A request added while
     * the lane is full is taken by the drain whose end makes room: it checks the queue after
     * giving its place back, as the request's turn end checks the drains after adding it.
     */
    private void queueDrainIfRoom() {
      int running;
      do {
        running = drains.get();
        if (running >= lanes.length || queue.isEmpty()) {
          return;
        }
      } while (!drains.compareAndSet(running, running + 1));
      AtomicBoolean started = new AtomicBoolean();
      executor.submit(() -> {
        started.set(true);
        drain();
        return null;
      }).onFailure(cause -> failAll(cause, !started.get()));
    }

    /** Runs on a storage worker. */
    private void drain() {
      List<Pending<Record>> gets = new ArrayList<>();
      List<Pending<Record>> applies = new ArrayList<>();
      Pending<?> request;
      while (gets.size() + applies.size() < MAX_GROUP && (request = queue.poll()) != null) {
        waiting.decrementAndGet();
        sort(request, gets, applies);
      }
      boolean getsAnswered = false;
      try {
        run(gets, GroupedStorage.this::getDistinct);
        getsAnswered = true;
        run(applies, keys -> store.applyAll(keys, applies.stream().map(Pending::record).toList()));
      } catch (Error e) {
        if (!getsAnswered && !applies.isEmpty()) {
          StorageException cause = new StorageException("storage worker failed", e);
          answer(applies, i -> applies.get(i).promise().tryFail(cause));
        }
        throw e;
      } finally {
        drains.decrementAndGet();
        queueDrainIfRoom();
      }
    }

    private static int sizeOf(Pending<?> apply) {
      byte[] value = apply.record().value();
      return apply.key().length + (value == null ? 0 : value.length);
    }

    @SuppressWarnings("unchecked")
    private static Pending<Record> uncheckedCast(Pending<?> request) {
      return (Pending<Record>) request;
    }

    @SuppressWarnings("unchecked")
    private static void sort(Pending<?> request, List<Pending<Record>> gets, List<Pending<Record>> applies) {
      if (request.record() == null) {
        gets.add((Pending<Record>) request);
      } else {
        applies.add((Pending<Record>) request);
      }
    }

    /** Runs the group's call and answers each of its requests, also when the call throws (an Error is thrown on). */
    private static <T> void run(List<Pending<T>> group, Function<List<byte[]>, List<T>> call) {
      if (group.isEmpty()) {
        return;
      }
      List<T> results;
      try {
        results = call.apply(group.stream().map(Pending::key).toList());
      } catch (RuntimeException e) {
        answer(group, i -> group.get(i).promise().tryFail(e));
        return;
      } catch (Error e) {
        StorageException cause = new StorageException("storage worker failed", e);
        answer(group, i -> group.get(i).promise().tryFail(cause));
        throw e;
      }
      answer(group, i -> group.get(i).promise().tryComplete(results.get(i)));
    }

    /**
     * Completes the group's promises in one task on their event loop, not one task each: a lane's
     * requests come from one event loop (each on a context of its own), so its group wakes that
     * loop once, and there each promise completes in place.
     */
    private static void answer(List<? extends Pending<?>> group, IntConsumer complete) {
      ContextInternal first = group.get(0).promise().context();
      boolean oneLoop = first != null && first.isEventLoopContext()
          && group.stream().allMatch(pending -> pending.promise().context().executor() == first.executor());
      if (!oneLoop) {
        completeAll(group, complete);
      } else if (first.nettyEventLoop().inEventLoop()) {
        first.dispatch(() -> completeAll(group, complete));
      } else {
        first.runOnContext(ignored -> completeAll(group, complete));
      }
    }

    private static void completeAll(List<? extends Pending<?>> group, IntConsumer complete) {
      for (int i = 0; i < group.size(); i++) {
        complete.accept(i);
      }
    }

    /**
     * The drain failed: refused by the executor (storage stopped, so nothing will take the queued
     * requests, and the drain never ran to give its place back) or ended by an Error.
     */
    private void failAll(Throwable cause, boolean neverRan) {
      Pending<?> request;
      while ((request = queue.poll()) != null) {
        waiting.decrementAndGet();
        request.promise().fail(cause);
      }
      if (neverRan) {
        drains.decrementAndGet();
      }
    }
  }
}
