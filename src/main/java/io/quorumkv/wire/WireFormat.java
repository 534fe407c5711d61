package io.quorumkv.wire;

/**
 * The wire format this node speaks: the version byte that opens every {@link Frame}. A frame of
 * another version is refused, never read in this version's layout.
 */
public final class WireFormat {
  /** The one version this node reads and writes. */
  public static final byte VERSION = 1;

  private WireFormat() {
  }

  /** IllegalArgumentException naming both versions when {@code version} is not this node's. */
  static void check(byte version) {
    if (version != VERSION) {
      throw new IllegalArgumentException("wire format " + Byte.toUnsignedInt(version) + ", this node speaks " + VERSION);
    }
  }
}
