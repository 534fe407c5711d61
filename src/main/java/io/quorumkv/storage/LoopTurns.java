package io.quorumkv.storage;

/**
 * Tells a get whether it is the first its event loop makes in the current turn (one pass over
 * the connections that are ready, then the loop's queued tasks). A lone request is read on the
 * loop, from memory; the requests that come after it in a busy turn are better grouped into one
 * {@code MultiGet} on a storage worker, which costs less CPU per key than a {@code Get} each.
 */
final class LoopTurns {
  private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);

  /** True for the first call of an event loop's turn, and for every call made off an event loop. */
  boolean firstOfTurn() {
    Turn turn = turns.get();
    if (turn.taken) {
      return false;
    }
    turn.taken = TurnEnd.defer(turn::end);
    return true;
  }

  private static final class Turn {
    private boolean taken;

    void end() {
      taken = false;
    }
  }
}
