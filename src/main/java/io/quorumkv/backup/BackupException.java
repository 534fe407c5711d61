package io.quorumkv.backup;

/** A backup that cannot be taken, read or restored; its message is one line saying why. */
public final class BackupException extends RuntimeException {
  public BackupException(String message) {
    super(message);
  }

  public BackupException(String message, Throwable cause) {
    super(message, cause);
  }
}
