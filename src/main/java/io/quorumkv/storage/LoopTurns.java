package io.quorumkv.storage;

/**
 * Tells a get whether to try the caller's event loop, from memory, before a storage worker. While
 * an event loop's reads from memory find their records, every get it makes is read there: no
 * hand-off to a worker and back (measured: 14.1 against 16.9 us of CPU a GET at 64 connections,
 * the data set in the caches). Once one misses (the record only on disk), only the first get of
 * each turn (one pass over the connections that are ready, then the loop's queued tasks) tries
 * memory, and the others of the turn go to a worker as one {@code MultiGet}, until a first get
 * finds its record in memory again: a data set larger than the caches does not pay for a failed
 * read from memory on every get.
 */
final class LoopTurns {
  private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);

  /** True when the get should try memory on this thread; always off an event loop. */
  boolean tryMemory() {
    Turn turn = turns.get();
    if (turn.taken) {
      return turn.lastFound;
    }
    turn.taken = TurnEnd.defer(turn::end);
    return true;
  }

  /** What the read from memory that {@link #tryMemory} allowed found: whether memory knew the answer. */
  void memoryRead(boolean known) {
    turns.get().lastFound = known;
  }

  private static final class Turn {
    private boolean taken;
    private boolean lastFound = true;

    void end() {
      taken = false;
    }
  }
}
