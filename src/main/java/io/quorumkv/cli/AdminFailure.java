package io.quorumkv.cli;

/** A subcommand that cannot do what it was asked: its message is the one line the operator sees. */
public final class AdminFailure extends RuntimeException {
  public AdminFailure(String line) {
    super(line, null, false, false);
  }
}
