package io.quorumkv.cli;

import io.quorumkv.config.CommandArguments;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code java -jar quorumkv.jar admin SUBCOMMAND [options]}: exit 0 when done, 1 with one line
 * on stderr when the cluster could not do it, 2 for arguments it does not take.
 */
public final class AdminCommand {
  static final String PREFIX = "quorumkv admin: ";
  private static final List<Subcommand> SUBCOMMANDS = List.of(new ClusterSubcommand(), new StatusSubcommand(),
      new MetricsSubcommand(), new JoinSubcommand(), new LeaveSubcommand(), new RemoveSubcommand(), new AbortSubcommand(),
      new RepairSubcommand(), new BackupSubcommand(), new BackupsSubcommand(), new RestoreSubcommand(),
      new JfrSubcommand());

  private AdminCommand() {
  }

  public static int runFromCommandLine(List<String> args) {
    return run(args, System.getenv(), System.out, System.err);
  }

  static int run(List<String> args, Map<String, String> environment, PrintStream out, PrintStream err) {
    if (args.isEmpty() || CommandArguments.isHelp(args.get(0))) {
      (args.isEmpty() ? err : out).println(usage());
      return args.isEmpty() ? 2 : 0;
    }
    Subcommand subcommand = SUBCOMMANDS.stream().filter(candidate -> candidate.name().equals(args.get(0)))
        .findFirst().orElse(null);
    if (subcommand == null) {
      err.println(PREFIX + "unknown subcommand '" + args.get(0) + "'");
      err.println(usage());
      return 2;
    }
    List<String> rest = args.subList(1, args.size());
    if (rest.stream().anyMatch(CommandArguments::isHelp)) {
      out.println("usage: java -jar quorumkv.jar admin " + subcommand.synopsis() + "\n" + AdminOptions.USAGE);
      return 0;
    }
    AdminOptions options;
    try {
      options = AdminOptions.parse(rest, environment);
    } catch (IllegalArgumentException e) {
      err.println(PREFIX + e.getMessage());
      err.println("usage: java -jar quorumkv.jar admin " + subcommand.synopsis());
      return 2;
    }
    try {
      subcommand.run(options.rest(), options, new NodeClient(options), new Output(out, err, options.json()));
      return 0;
    } catch (Reported e) {
      return e.status();
    } catch (IllegalArgumentException e) {
      err.println(PREFIX + subcommand.name() + ": " + e.getMessage());
      err.println("usage: java -jar quorumkv.jar admin " + subcommand.synopsis());
      return 2;
    } catch (AdminFailure | UncheckedIOException e) {
      err.println(PREFIX + e.getMessage());
      return 1;
    }
  }

  static String usage() {
    return "usage: java -jar quorumkv.jar admin SUBCOMMAND [options]   (SUBCOMMAND --help for its own)\n"
        + SUBCOMMANDS.stream().map(subcommand -> "  " + subcommand.synopsis()).collect(Collectors.joining("\n"))
        + "\n" + AdminOptions.USAGE;
  }
}
