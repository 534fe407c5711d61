package io.quorumkv.admission;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A node that runs out of heap stops with its own status; other failures pass by. */
class OutOfMemoryExitTest {
  @Test
  void anOutOfMemoryErrorStopsTheNodeAndNothingElseDoes() {
    List<Integer> halted = new ArrayList<>();
    var handler = OutOfMemoryExit.handler(halted::add);
    handler.handle(new IllegalStateException("an ordinary failure"));
    handler.handle(new StackOverflowError());
    assertEquals(List.of(), halted);
    handler.handle(new OutOfMemoryError("Java heap space"));
    assertEquals(List.of(OutOfMemoryExit.STATUS), halted);
  }
}
