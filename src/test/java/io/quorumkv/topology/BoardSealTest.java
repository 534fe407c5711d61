package io.quorumkv.topology;

import io.quorumkv.config.NodeUrl;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seal on the board's values: what one node seals, another with the same secret opens, with
 * its writer; anything changed (the secret, the map, the key, the writer, the value, the MAC, the
 * format) does not open. The MAC is the one docs/operations.md describes, computed here apart.
 */
class BoardSealTest {
  private static final String SECRET = "a cluster secret";
  private static final NodeUrl A = NodeUrl.parse("url", "http://127.0.0.1:8080");
  private static final NodeUrl C = NodeUrl.parse("url", "http://127.0.0.1:8082");
  private static final String TOPOLOGY = Topology.initial(List.of(A, C)).encode();

  private final BoardSeal seal = BoardSeal.of(SECRET);

  @Test
  void aSealedValueOpensWithTheSameSecretAndNamesItsWriter() {
    String sealed = seal.seal(HazelcastBoard.TOPOLOGY_MAP, HazelcastBoard.KEY, A, TOPOLOGY);
    BoardSeal.Opened opened = BoardSeal.of(SECRET).open(HazelcastBoard.TOPOLOGY_MAP, HazelcastBoard.KEY, sealed);
    assertEquals(new BoardSeal.Opened(TOPOLOGY, A), opened);
  }

  @Test
  void theMacIsHmacSha256UnderTheDerivedKeyOverTheLengthPrefixedFields() throws Exception {
    Mac derive = Mac.getInstance("HmacSHA256");
    derive.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    byte[] key = derive.doFinal("quorumkv hazelcast values v1".getBytes(StandardCharsets.UTF_8));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    for (String field : new String[] {"quorumkv.applied", A.toString(), A.toString(), "42"}) {
      byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
      mac.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
      mac.update(bytes);
    }
    String expected = "qkv1 " + Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal()) + " " + A + " 42";
    assertEquals(expected, seal.seal(HazelcastBoard.APPLIED_MAP, A.toString(), A, "42"));
  }

  @Test
  void aValueDoesNotOpenWithAnotherSecret() {
    String sealed = BoardSeal.of("another secret").seal(HazelcastBoard.TOPOLOGY_MAP, HazelcastBoard.KEY, A, TOPOLOGY);
    assertNull(seal.open(HazelcastBoard.TOPOLOGY_MAP, HazelcastBoard.KEY, sealed));
  }

  @Test
  void aValueDoesNotOpenUnderAnotherKeyOrMap() {
    String report = seal.seal(HazelcastBoard.APPLIED_MAP, A.toString(), A, "7");
    assertTrue(seal.open(HazelcastBoard.APPLIED_MAP, A.toString(), report) != null);
    assertNull(seal.open(HazelcastBoard.APPLIED_MAP, C.toString(), report), "another node's key");
    assertNull(seal.open(HazelcastBoard.TRANSFERS_MAP, A.toString(), report), "another map");
  }

  @Test
  void anyChangeToTheValueTheWriterOrTheMacDoesNotOpen() {
    String sealed = seal.seal(HazelcastBoard.APPLIED_MAP, A.toString(), A, "7");
    String[] parts = sealed.split(" ", 4);
    List<String> altered = List.of(
        String.join(" ", parts[0], parts[1], parts[2], "8"),
        String.join(" ", parts[0], parts[1], C.toString(), parts[3]),
        String.join(" ", parts[0], flipFirstCharacter(parts[1]), parts[2], parts[3]),
        String.join(" ", "qkv2", parts[1], parts[2], parts[3]),
        String.join(" ", parts[0], "not*base64", parts[2], parts[3]),
        String.join(" ", parts[0], parts[1], parts[2]),
        "7");
    for (String value : altered) {
      assertNull(seal.open(HazelcastBoard.APPLIED_MAP, A.toString(), value), value);
    }
  }

  @Test
  void aValueOfAnotherTypeDoesNotOpen() {
    assertNull(seal.open(HazelcastBoard.APPLIED_MAP, A.toString(), 7L));
  }

  /** The first character: all six of its bits are the MAC's (the last one's lowest two are padding). */
  private static String flipFirstCharacter(String text) {
    return (text.charAt(0) == 'A' ? 'B' : 'A') + text.substring(1);
  }
}
