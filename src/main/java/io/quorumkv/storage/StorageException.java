package io.quorumkv.storage;

/** RocksDB failed or the store is closed; the request fails with 503 rather than a stack trace. */
public class StorageException extends RuntimeException {
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }

  public StorageException(String message) {
    super(message);
  }
}
