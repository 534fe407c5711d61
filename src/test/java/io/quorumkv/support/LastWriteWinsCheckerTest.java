package io.quorumkv.support;

import io.quorumkv.support.LastWriteWinsChecker.Read;
import io.quorumkv.support.LastWriteWinsChecker.Result;
import io.quorumkv.support.LastWriteWinsChecker.Violation;
import io.quorumkv.support.Write.Kind;
import io.quorumkv.support.Write.Outcome;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The chaos test's judge, on hand-made histories (times in ms, as nanos would be). */
class LastWriteWinsCheckerTest {

  private static Write put(String value, long start, long end, Outcome outcome) {
    return new Write("k", Kind.PUT, value, 0, start, end, outcome, -1);
  }

  private static Write delete(long start, long end, Outcome outcome) {
    return new Write("k", Kind.DELETE, null, 0, start, end, outcome, -1);
  }

  private static Result check(List<Write> history, int status, String value) {
    return new LastWriteWinsChecker(history).check(List.of(new Read("k", 0, status, value, -1)));
  }

  @Test
  void earlierAcknowledgedValueWinningOverALaterAcknowledgedOneIsALostWrite() {
    List<Write> history = List.of(put("a", 0, 10, Outcome.ACKNOWLEDGED), put("b", 20, 30, Outcome.ACKNOWLEDGED));
    Result result = check(history, 200, "a");
    assertEquals(List.of(Violation.LOST), result.findings().stream().map(f -> f.violation()).toList());
    assertEquals("b", result.findings().get(0).latest().value());
    assertEquals(0, check(history, 200, "b").findings().size());
  }

  @Test
  void overlappingAcknowledgedWritesMayWinEitherWay() {
    List<Write> history = List.of(put("a", 0, 25, Outcome.ACKNOWLEDGED), put("b", 20, 30, Outcome.ACKNOWLEDGED));
    assertEquals(0, check(history, 200, "a").findings().size());
    assertEquals(0, check(history, 200, "b").findings().size());
  }

  @Test
  void unacknowledgedWriteMayLandAfterALaterAcknowledgedOneAndIsCountedAsLate() {
    List<Write> history = List.of(put("a", 0, 10, Outcome.FAILED), put("b", 20, 30, Outcome.ACKNOWLEDGED),
        put("c", 5, 15, Outcome.UNKNOWN));
    Result late = check(history, 200, "a");
    assertEquals(0, late.findings().size());
    assertEquals(1, late.lateWins());
    assertEquals(1, check(history, 200, "c").lateWins());
  }

  @Test
  void deletedKeyReadingAnEarlierValueIsResurrected() {
    List<Write> history = List.of(put("a", 0, 10, Outcome.ACKNOWLEDGED), delete(20, 30, Outcome.ACKNOWLEDGED));
    assertEquals(Violation.RESURRECTED, check(history, 200, "a").findings().get(0).violation());
    assertEquals(0, check(history, 404, null).findings().size());
  }

  @Test
  void absenceNeedsADeleteThatWasNotOverwrittenByAnAcknowledgedPut() {
    List<Write> deletedThenWritten = List.of(delete(0, 10, Outcome.ACKNOWLEDGED), put("a", 20, 30, Outcome.ACKNOWLEDGED));
    assertEquals(Violation.LOST, check(deletedThenWritten, 404, null).findings().get(0).violation());
    List<Write> failedDeleteAfter = List.of(put("a", 0, 10, Outcome.ACKNOWLEDGED), delete(20, 30, Outcome.UNKNOWN));
    assertEquals(0, check(failedDeleteAfter, 404, null).findings().size());
    assertEquals(0, check(List.of(put("a", 0, 10, Outcome.FAILED)), 404, null).findings().size());
  }

  @Test
  void valueNoWriteOfTheKeyCarriedIsAPhantom() {
    List<Write> history = List.of(put("a", 0, 10, Outcome.ACKNOWLEDGED),
        new Write("other", Kind.PUT, "x", 0, 0, 10, Outcome.ACKNOWLEDGED, -1));
    assertEquals(Violation.PHANTOM, check(history, 200, "x").findings().get(0).violation());
    assertEquals(Violation.PHANTOM, check(history, 200, "never").findings().get(0).violation());
    assertEquals(Violation.UNREADABLE, check(history, 504, null).findings().get(0).violation());
  }

  @Test
  void valuesMustBeUniqueToTellWritesApart() {
    assertThrows(IllegalArgumentException.class, () -> new LastWriteWinsChecker(
        List.of(put("a", 0, 10, Outcome.ACKNOWLEDGED), put("a", 20, 30, Outcome.ACKNOWLEDGED))));
  }
}
