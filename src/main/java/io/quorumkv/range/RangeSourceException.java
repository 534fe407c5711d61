package io.quorumkv.range;

/** A node's part of a cluster-wide range could not be read (down, timed out, cut short, malformed); says which node. */
public final class RangeSourceException extends RuntimeException {
  public RangeSourceException(String message) {
    super(message, null, false, false);
  }
}
