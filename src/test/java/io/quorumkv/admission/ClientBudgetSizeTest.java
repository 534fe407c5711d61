package io.quorumkv.admission;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The client budget a node takes when its conf sets none, at the heaps nodes run with. */
class ClientBudgetSizeTest {
  private static final long MIB = 1 << 20;

  @ParameterizedTest(name = "{0} MiB of heap, a {1} MiB limit: {2} MiB ({3})")
  @CsvSource({
      "256, 16, 64, the scripts default heap: a value at the limit written and read back at once",
      "128, 16, 32, a small heap: no more than a quarter",
      "1024, 16, 128, a large heap: its eighth",
      "256, 1, 32, a small limit: the eighth"})
  void theDefaultBudget(long heapMib, long limitMib, long budgetMib, String why) {
    assertEquals(budgetMib * MIB, Admission.defaultClientBodyBytes(heapMib * MIB, limitMib * MIB), why);
  }
}
