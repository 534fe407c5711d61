package io.quorumkv.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuorumTest {

  @Test
  void defaultsAreTheDefaultFromAndAMajorityOfIt() {
    assertEquals(new Quorum(1, 1), Quorum.parse(null, null, 1, 1));
    assertEquals(new Quorum(2, 2), Quorum.parse(null, null, 2, 2));
    assertEquals(new Quorum(2, 3), Quorum.parse(null, null, 3, 3));
    assertEquals(new Quorum(2, 3), Quorum.parse(null, null, 3, 5), "from defaults to the factor, not the cluster size");
    assertEquals(new Quorum(3, 4), Quorum.parse(null, null, 4, 4));
    assertEquals(new Quorum(3, 5), Quorum.parse(null, "5", 3, 5), "from on the request overrides the default");
    assertEquals(new Quorum(2, 2), Quorum.parse(null, "2", 5, 5));
    assertEquals(new Quorum(1, 3), Quorum.parse("1", null, 3, 5));
  }

  @Test
  void invalidCombinationsSayWhatIsWrong() {
    assertTrue(assertThrows(InvalidQuorumException.class, () -> Quorum.parse("3", "2", 3, 3)).getMessage().contains("ack=3"));
    assertTrue(assertThrows(InvalidQuorumException.class, () -> Quorum.parse(null, "4", 3, 3)).getMessage().contains("cluster size 3"));
    assertTrue(assertThrows(InvalidQuorumException.class, () -> Quorum.parse("0", null, 3, 3)).getMessage().contains("at least 1"));
    assertTrue(assertThrows(InvalidQuorumException.class, () -> Quorum.parse(null, "x", 3, 3)).getMessage().contains("from"));
    assertThrows(InvalidQuorumException.class, () -> Quorum.parse("4", null, 3, 3));
    assertThrows(InvalidQuorumException.class, () -> Quorum.parse("2147483648", null, 3, 3));
  }
}
