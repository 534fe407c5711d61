package io.quorumkv.config;

/** A conf problem, worded as the one line an operator sees before the node exits. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message, null, false, false);
  }
}
