package io.quorumkv.admission;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The client budget a node takes when its conf sets none, at the heaps nodes run with. */
class ClientBudgetSizeTest {
  private static final long MIB = 1 << 20;
  private static final long LIMIT = 16 * MIB;

  @Test
  void atTheScriptsHeapAValueAtTheLimitCanBeWrittenAndReadAtOnce() {
    assertEquals(64 * MIB, Admission.defaultClientBodyBytes(256 * MIB, LIMIT));
  }

  @Test
  void aSmallHeapGivesNoMoreThanAQuarter() {
    assertEquals(32 * MIB, Admission.defaultClientBodyBytes(128 * MIB, LIMIT));
  }

  @Test
  void aLargeHeapKeepsItsEighth() {
    assertEquals(128 * MIB, Admission.defaultClientBodyBytes(1024 * MIB, LIMIT));
  }

  @Test
  void aSmallerLimitKeepsTheEighth() {
    assertEquals(32 * MIB, Admission.defaultClientBodyBytes(256 * MIB, MIB));
  }
}
