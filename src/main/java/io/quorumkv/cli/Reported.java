package io.quorumkv.cli;

/** A subcommand that ended with a failure it reported itself (such as the restore tool's): only its exit status is left. */
final class Reported extends RuntimeException {
  private final int status;

  Reported(int status) {
    super(null, null, false, false);
    this.status = status;
  }

  int status() {
    return status;
  }
}
