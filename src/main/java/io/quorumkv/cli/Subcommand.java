package io.quorumkv.cli;

import java.util.List;

/** One of {@code admin}'s subcommands. */
interface Subcommand {
  /** The word that names it on the command line. */
  String name();

  /** Its arguments after the name and what it does, for the usage: {@code "status   every node: ..."}. */
  String synopsis();

  /**
   * Does the work with the arguments left after the common options; throws {@link AdminFailure} with
   * one line on failure, {@link IllegalArgumentException} for arguments it does not take.
   */
  void run(List<String> arguments, AdminOptions options, NodeClient client, Output output);
}
