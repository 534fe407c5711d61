package io.quorumkv.cluster;

import io.quorumkv.config.NodeUrl;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * Authenticates the values a node writes to Hazelcast (the topology board's, the member proofs of
 * {@link MemberProofs}) with a key derived from the cluster secret, so that a Hazelcast member
 * without the secret can write nothing the nodes take.
 *
 * <p>The key is HMAC-SHA256(secret, {@value #LABEL}): a key of its own, never the secret itself,
 * and a new label (a {@code v2}) gives new keys without a new secret. A sealed value is the text
 * {@code qkv1 MAC WRITER VALUE}: the MAC (HMAC-SHA256, base64url without padding) covers the map's
 * name, the entry's key, the writer's url and the value, each preceded by its length, so a value
 * that verifies under one key or map does not verify under another. Nothing here stops a valid
 * value from being written again later under its own key: readers keep what only grows (the
 * board's epochs) or bind the key to what cannot be reused (a member's UUID). Thread-safe.
 */
public final class HazelcastSeal {
  static final String LABEL = "quorumkv hazelcast values v1";
  static final String FORMAT = "qkv1";
  private static final String ALGORITHM = "HmacSHA256";
  private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder BASE64_DECODER = Base64.getUrlDecoder();

  /** A value that verified, and the node that says it wrote it. */
  public record Opened(String value, NodeUrl writer) {
  }

  private final SecretKeySpec key;

  private HazelcastSeal(byte[] key) {
    this.key = new SecretKeySpec(key, ALGORITHM);
  }

  /** The seal of the cluster whose conf sets {@code clusterSecret} (not empty). */
  public static HazelcastSeal of(String clusterSecret) {
    return new HazelcastSeal(hmac(clusterSecret.getBytes(StandardCharsets.UTF_8), LABEL.getBytes(StandardCharsets.UTF_8)));
  }

  /** {@code value}, sealed as written by {@code writer} under {@code key} of {@code map}. */
  public String seal(String map, String key, NodeUrl writer, String value) {
    String author = writer.toString();
    return FORMAT + ' ' + BASE64.encodeToString(mac(map, key, author, value)) + ' ' + author + ' ' + value;
  }

  /**
   * The value and its writer, if {@code stored} is a value sealed under {@code key} of {@code map}
   * with this cluster's key; null for anything else (another type, another format, another MAC).
   */
  public Opened open(String map, String key, Object stored) {
    if (!(stored instanceof String text)) {
      return null;
    }
    String[] parts = text.split(" ", 4);
    if (parts.length != 4 || !parts[0].equals(FORMAT)) {
      return null;
    }
    byte[] claimed;
    try {
      claimed = BASE64_DECODER.decode(parts[1]);
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
    // Compared in constant time; the writer's url is parsed only once the MAC vouches for it.
    if (!MessageDigest.isEqual(claimed, mac(map, key, parts[2], parts[3]))) {
      return null;
    }
    try {
      return new Opened(parts[3], NodeUrl.parse("writer", parts[2]));
    } catch (RuntimeException notAUrl) {
      return null;
    }
  }

  private byte[] mac(String map, String key, String writer, String value) {
    Mac mac = newMac(this.key);
    for (String field : new String[] {map, key, writer, value}) {
      byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
      mac.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
      mac.update(bytes);
    }
    return mac.doFinal();
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    return newMac(new SecretKeySpec(key, ALGORITHM)).doFinal(data);
  }

  /** A fresh HMAC-SHA256 under the key ({@link Mac} is not thread-safe; the board is low-rate). */
  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }
}
