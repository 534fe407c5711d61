package io.quorumkv.storage;

/** A write found no room on the node's disk; reads go on, and writes succeed again once space is freed. */
public final class DiskFullException extends StorageException {
  /** What clients and other nodes are told: no file path, nothing internal. */
  public static final String MESSAGE = "disk full";

  public DiskFullException(Throwable cause) {
    super(MESSAGE, cause);
  }
}
