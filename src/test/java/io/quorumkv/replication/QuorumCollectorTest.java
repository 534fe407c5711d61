package io.quorumkv.replication;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.storage.Record;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The quorum rules of {@link WriteQuorumCollector} and {@link ReadQuorumCollector}, driven answer by answer. */
class QuorumCollectorTest {
  private static final NodeUrl A = new NodeUrl("a", 1);
  private static final NodeUrl B = new NodeUrl("b", 1);
  private static final NodeUrl C = new NodeUrl("c", 1);

  @Test
  void writeSucceedsAtTheAckthSuccessWithoutWaitingForTheRest() {
    WriteQuorumCollector quorum = new WriteQuorumCollector(new Quorum(2, 3));
    List<Promise<WriteAnswer>> calls = track(quorum);
    calls.get(0).complete(WriteAnswer.STORED);
    assertFalse(quorum.outcome().isComplete());
    calls.get(2).complete(WriteAnswer.STORED);
    assertTrue(quorum.outcome().succeeded());
  }

  @Test
  void writeFailsAsSoonAsAckIsOutOfReach() {
    WriteQuorumCollector quorum = new WriteQuorumCollector(new Quorum(2, 3));
    List<Promise<WriteAnswer>> calls = track(quorum);
    calls.get(0).fail(new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down"));
    assertFalse(quorum.outcome().isComplete());
    calls.get(1).fail(new ReplicaFailure(ReplicaFailure.Kind.TIMEOUT, "timeout"));
    assertTrue(quorum.outcome().failed());
    NotEnoughReplicasException e = (NotEnoughReplicasException) quorum.outcome().cause();
    assertEquals(2, e.required());
    assertTrue(e.getMessage().contains("a:1: down") && e.getMessage().contains("b:1: timeout"), e.getMessage());
    calls.get(2).complete(WriteAnswer.STORED);
    assertTrue(quorum.outcome().failed(), "a late success changes nothing");
  }

  @Test
  void readAnswersWhenAckReplicasReturnedARecord() {
    ReadQuorumCollector quorum = new ReadQuorumCollector(new Quorum(2, 3));
    List<Promise<Record>> calls = trackReads(quorum);
    calls.get(0).complete(Record.live(5, new byte[] {1}, 0));
    calls.get(1).complete(Record.live(7, new byte[] {2}, 0));
    assertEquals(7, quorum.outcome().result().version());
  }

  @Test
  void aReplicaWithNothingDoesNotCountWhileAnotherMayHaveARecord() {
    ReadQuorumCollector quorum = new ReadQuorumCollector(new Quorum(2, 3));
    List<Promise<Record>> calls = trackReads(quorum);
    calls.get(0).complete(null);
    calls.get(1).complete(Record.live(7, new byte[] {2}, 0));
    assertFalse(quorum.outcome().isComplete(), "one empty answer must not make a quorum with one record");
    calls.get(2).complete(null);
    assertEquals(7, quorum.outcome().result().version(), "every replica answered: the freshest record wins");
  }

  @Test
  void readOfAKeyNobodyHasIsNullOnceAllAnswered() {
    ReadQuorumCollector quorum = new ReadQuorumCollector(new Quorum(2, 3));
    List<Promise<Record>> calls = trackReads(quorum);
    calls.get(0).complete(null);
    calls.get(1).complete(null);
    assertFalse(quorum.outcome().isComplete());
    calls.get(2).fail(new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down"));
    assertTrue(quorum.outcome().succeeded());
    assertNull(quorum.outcome().result());
  }

  @Test
  void readFailsWhenFewerThanAckCanStillAnswer() {
    ReadQuorumCollector quorum = new ReadQuorumCollector(new Quorum(2, 3));
    List<Promise<Record>> calls = trackReads(quorum);
    calls.get(0).complete(null);
    calls.get(1).fail(new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down"));
    assertFalse(quorum.outcome().isComplete());
    calls.get(2).fail(new ReplicaFailure(ReplicaFailure.Kind.TIMEOUT, "timeout"));
    assertTrue(quorum.outcome().cause() instanceof NotEnoughReplicasException);
  }

  @Test
  void aTombstoneIsARecordAndCanBeTheFreshest() {
    ReadQuorumCollector quorum = new ReadQuorumCollector(new Quorum(2, 2));
    List<Promise<Record>> calls = trackReads(quorum);
    calls.get(0).complete(Record.live(5, new byte[] {1}, 0));
    calls.get(1).complete(Record.tombstone(6));
    assertTrue(quorum.outcome().result().tombstone());
  }

  @Test
  void aWriteRefusedByReplicasHoldingANewerRecordFailsAsSupersededWithTheirHighestVersion() {
    WriteQuorumCollector quorum = new WriteQuorumCollector(new Quorum(2, 3));
    List<Promise<WriteAnswer>> calls = track(quorum);
    calls.get(0).complete(WriteAnswer.STORED);
    calls.get(1).complete(WriteAnswer.superseded(40));
    assertFalse(quorum.outcome().isComplete(), "the third replica may still store it");
    calls.get(2).complete(WriteAnswer.superseded(41));
    WriteSupersededException e = (WriteSupersededException) quorum.outcome().cause();
    assertEquals(41, e.keptVersion());
  }

  @Test
  void aWriteStoredByAckReplicasSucceedsEvenIfAnotherHoldsANewerRecord() {
    WriteQuorumCollector quorum = new WriteQuorumCollector(new Quorum(2, 3));
    List<Promise<WriteAnswer>> calls = track(quorum);
    calls.get(0).complete(WriteAnswer.superseded(40));
    calls.get(1).complete(WriteAnswer.STORED);
    calls.get(2).complete(WriteAnswer.STORED);
    assertTrue(quorum.outcome().succeeded());
  }

  @Test
  void aWriteThatFailsOnOneReplicaAndIsSupersededOnAnotherIsSuperseded() {
    WriteQuorumCollector quorum = new WriteQuorumCollector(new Quorum(2, 3));
    List<Promise<WriteAnswer>> calls = track(quorum);
    calls.get(0).fail(new ReplicaFailure(ReplicaFailure.Kind.DOWN, "down"));
    calls.get(1).complete(WriteAnswer.superseded(7));
    assertTrue(quorum.outcome().cause() instanceof WriteSupersededException, String.valueOf(quorum.outcome().cause()));
  }

  private static List<Promise<WriteAnswer>> track(WriteQuorumCollector quorum) {
    return replicaCalls(quorum::track);
  }

  private static List<Promise<Record>> trackReads(ReadQuorumCollector quorum) {
    return replicaCalls(quorum::track);
  }

  /** One pending call per replica A, B, C, handed to the collector. */
  private static <T> List<Promise<T>> replicaCalls(BiConsumer<NodeUrl, Future<T>> collector) {
    List<Promise<T>> calls = new ArrayList<>();
    for (NodeUrl node : List.of(A, B, C)) {
      Promise<T> call = Promise.promise();
      collector.accept(node, call.future());
      calls.add(call);
    }
    return calls;
  }
}
