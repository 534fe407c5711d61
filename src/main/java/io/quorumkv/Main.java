package io.quorumkv;

import io.quorumkv.admin.FlameGraphCommand;
import io.quorumkv.backup.RestoreCommand;
import io.quorumkv.config.CommandArguments;
import io.quorumkv.config.ConfigException;
import io.quorumkv.config.ConfigLoader;
import io.quorumkv.config.NodeConfig;
import io.quorumkv.topology.Topology;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar quorumkv.jar [--config FILE]}: starts one node and stops it cleanly on SIGTERM.
 * A start that fails prints one line saying why and exits with status 1; bad arguments exit with 2.
 */
public final class Main {
  private static final String USAGE = "usage: java -jar quorumkv.jar [--config FILE]\n"
      + "       java -jar quorumkv.jar bench --url URL --rate REQ_PER_S [options]   (load tool; bench alone for its options)\n"
      + "       java -jar quorumkv.jar flame cpu|alloc|lock|wall FILE.jfr PAGE.html   (a JFR recording's flame graph)\n"
      + "       java -jar quorumkv.jar admin SUBCOMMAND [options]   (the operator's command; admin --help for its subcommands)\n"
      + "       java -jar quorumkv.jar restore --from DIR --url URL [options]   (restore backups; restore alone for its options)";
  /** Held so the level sticks: java.util.logging keeps loggers weakly. */
  private static final java.util.logging.Logger HAZELCAST_LOG = java.util.logging.Logger.getLogger("com.hazelcast");
  /** Hazelcast warns at every start that its CP subsystem (which quorumkv does not use) is off. */
  private static final java.util.logging.Logger CP_SUBSYSTEM_LOG =
      java.util.logging.Logger.getLogger("com.hazelcast.cp.CPSubsystem");
  /** vertx-micrometer registers some Vert.x gauges twice; Micrometer ignores the second and warns. */
  private static final java.util.logging.Logger METER_REGISTRY_LOG =
      java.util.logging.Logger.getLogger("io.micrometer.core.instrument.MeterRegistry");

  private Main() {
  }

  public static void main(String[] args) {
    if (CommandArguments.asksForHelp(java.util.List.of(args))) {
      System.out.println(USAGE);
      System.exit(0);
    }
    if (args.length > 0 && args[0].equals("bench")) {
      System.exit(io.quorumkv.bench.LoadTool.runFromCommandLine(java.util.List.of(args).subList(1, args.length)));
    }
    if (args.length > 0 && args[0].equals("admin")) {
      System.exit(io.quorumkv.cli.AdminCommand.runFromCommandLine(java.util.List.of(args).subList(1, args.length)));
    }
    if (args.length > 0 && args[0].equals("restore")) {
      System.exit(RestoreCommand.runFromCommandLine(java.util.List.of(args).subList(1, args.length)));
    }
    if (args.length > 0 && args[0].equals("flame")) {
      System.exit(FlameGraphCommand.run(java.util.List.of(args).subList(1, args.length)));
    }
    System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %3$s - %5$s%6$s%n");
    HAZELCAST_LOG.setLevel(java.util.logging.Level.WARNING);
    CP_SUBSYSTEM_LOG.setLevel(java.util.logging.Level.SEVERE);
    METER_REGISTRY_LOG.setLevel(java.util.logging.Level.SEVERE);
    NodeConfig config;
    try {
      config = configFrom(args);
    } catch (IllegalArgumentException e) {
      System.err.println("quorumkv: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    } catch (ConfigException e) {
      exitWith("conf error: " + e.getMessage());
      return;
    }
    NodeConfig started = config;
    Node.start(config)
        .onSuccess(node -> {
          Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(node), "quorumkv-shutdown"));
          System.err.println("quorumkv: node " + started.url() + " ready on port " + node.port()
              + ", data in " + started.dataDir() + ", transport " + node.transport() + "; " + whereFrom(args)
              + ", " + clusterOf(node, started));
          // Exiting runs the shutdown hook, which needs the event loops: not from one of them.
          node.departed().onSuccess(epoch -> new Thread(() -> {
            System.err.println("quorumkv: node " + started.url() + " left the cluster at topology epoch " + epoch);
            System.exit(0);
          }, "quorumkv-departure").start());
        })
        .onFailure(e -> exitWith(e instanceof ConfigException ? "conf error: " + e.getMessage() : e.getMessage()));
  }

  private static NodeConfig configFrom(String[] args) {
    if (args.length == 0) {
      return NodeConfig.defaults();
    }
    if (args.length == 2 && args[0].equals("--config")) {
      return ConfigLoader.load(Path.of(args[1]));
    }
    throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", args));
  }

  private static String whereFrom(String[] args) {
    return args.length == 0 ? "no conf file (defaults)" : "conf " + args[1];
  }

  /** The topology this node started with (the conf's cluster, or the one the nodes agreed on since). */
  private static String clusterOf(Node node, NodeConfig config) {
    Topology topology = node.topology().current();
    String nodes = topology.members().size() == 1 ? "a single node" : topology.members().size() + " nodes";
    return nodes + " in topology epoch " + topology.epoch()
        + (config.clusterSize() == 1 ? "" : ", Hazelcast on port " + config.hazelcast().port());
  }

  private static void stop(Node node) {
    System.err.println("quorumkv: stopping");
    try {
      node.stop().toCompletionStage().toCompletableFuture()
          .get(node.config().stopTimeoutMs(), TimeUnit.MILLISECONDS);
      System.err.println("quorumkv: stopped");
    } catch (Exception e) {
      System.err.println("quorumkv: stop did not finish cleanly: " + e);
    }
  }

  private static void exitWith(String line) {
    System.err.println("quorumkv: " + line);
    System.exit(1);
  }
}
