package io.quorumkv;

/** The node could not start; the message is the one line the operator sees. */
public final class StartupException extends RuntimeException {
  public StartupException(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
