package io.quorumkv.web;

/** The request is malformed; its message is the body of the 400. */
public final class BadRequestException extends RuntimeException {
  public BadRequestException(String message) {
    super(message, null, false, false);
  }
}
