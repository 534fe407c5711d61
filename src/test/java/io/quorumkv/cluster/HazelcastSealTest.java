package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.topology.Topology;
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
class HazelcastSealTest {
  /** The topology board's maps and key (topology.HazelcastBoard's). */
  private static final String TOPOLOGY_MAP = "quorumkv.topology";
  private static final String APPLIED_MAP = "quorumkv.applied";
  private static final String TRANSFERS_MAP = "quorumkv.transfers";
  private static final String KEY = "topology";
  private static final String SECRET = "a cluster secret";
  private static final NodeUrl A = NodeUrl.parse("url", "http://127.0.0.1:8080");
  private static final NodeUrl C = NodeUrl.parse("url", "http://127.0.0.1:8082");
  private static final String TOPOLOGY = Topology.initial(List.of(A, C)).encode();

  private final HazelcastSeal seal = HazelcastSeal.of(SECRET);

  @Test
  void aSealedValueOpensWithTheSameSecretAndNamesItsWriter() {
    String sealed = seal.seal(TOPOLOGY_MAP, KEY, A, TOPOLOGY);
    HazelcastSeal.Opened opened = HazelcastSeal.of(SECRET).open(TOPOLOGY_MAP, KEY, sealed);
    assertEquals(new HazelcastSeal.Opened(TOPOLOGY, A), opened);
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
    assertEquals(expected, seal.seal(APPLIED_MAP, A.toString(), A, "42"));
  }

  @Test
  void aValueDoesNotOpenWithAnotherSecret() {
    String sealed = HazelcastSeal.of("another secret").seal(TOPOLOGY_MAP, KEY, A, TOPOLOGY);
    assertNull(seal.open(TOPOLOGY_MAP, KEY, sealed));
  }

  @Test
  void aValueDoesNotOpenUnderAnotherKeyOrMap() {
    String report = seal.seal(APPLIED_MAP, A.toString(), A, "7");
    assertTrue(seal.open(APPLIED_MAP, A.toString(), report) != null);
    assertNull(seal.open(APPLIED_MAP, C.toString(), report), "another node's key");
    assertNull(seal.open(TRANSFERS_MAP, A.toString(), report), "another map");
  }

  @Test
  void anyChangeToTheValueTheWriterOrTheMacDoesNotOpen() {
    String sealed = seal.seal(APPLIED_MAP, A.toString(), A, "7");
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
      assertNull(seal.open(APPLIED_MAP, A.toString(), value), value);
    }
  }

  @Test
  void aValueOfAnotherTypeDoesNotOpen() {
    assertNull(seal.open(APPLIED_MAP, A.toString(), 7L));
  }

  /** The first character: all six of its bits are the MAC's (the last one's lowest two are padding). */
  private static String flipFirstCharacter(String text) {
    return (text.charAt(0) == 'A' ? 'B' : 'A') + text.substring(1);
  }
}
