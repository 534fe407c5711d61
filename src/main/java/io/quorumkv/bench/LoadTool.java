package io.quorumkv.bench;

import io.quorumkv.config.CommandArguments;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import org.HdrHistogram.HistogramLogWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar quorumkv.jar bench ...}: a constant-rate load generator in the manner of wrk2
 * (which Debian does not ship), with its percentile output, an HdrHistogram log and a chart.
 * See {@link LoadOptions#USAGE}.
 */
public final class LoadTool {
  private LoadTool() {
  }

  /**
   * 3 when the tool could not keep the rate (its result is its own), 1 with errors (and when the first
   * answers all failed alike, which stops the run), else 0.
   */
  static int exitStatusOf(LoadGenerator.Result result) {
    if (result.toolBehind()) {
      return 3;
    }
    return result.errors() > 0 ? 1 : 0;
  }

  /**
   * {@code bench ARGS} from the command line: a paced run asks for C1 only ({@link ToolJit}), so a
   * JVM with C2 hands the run to one without; returns the process exit status.
   */
  public static int runFromCommandLine(List<String> args) {
    try {
      if (LoadOptions.parse(args).toolJit() == ToolJit.C1 && ToolJit.ofThisJvm() == ToolJit.C2) {
        return ToolJit.relaunchWithC1Only(args);
      }
    } catch (IllegalArgumentException e) {
      // run() reports bad options (and answers --help)
    } catch (IOException e) {
      System.err.println("bench: cannot start a JVM with " + ToolJit.C1_ONLY + " (" + e.getMessage()
          + "); running with C2, or pass --tool-jit c2");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    return run(args, System.out, System.err);
  }

  /** Runs the tool in this JVM; returns the process exit status. */
  public static int run(List<String> args, PrintStream out, PrintStream progress) {
    if (args.stream().anyMatch(CommandArguments::isHelp)) {
      out.println(LoadOptions.USAGE);
      return 0;
    }
    LoadOptions options;
    try {
      options = LoadOptions.parse(args);
    } catch (IllegalArgumentException e) {
      progress.println("bench: " + e.getMessage());
      progress.println(LoadOptions.USAGE);
      return 2;
    }
    System.setProperty("java.awt.headless", "true");
    int[] keyIndexes;
    try {
      keyIndexes = KeyPlacement.keyIndexes(options);
    } catch (IOException | IllegalArgumentException e) {
      progress.println("bench: cannot choose keys by placement: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    // Epoll waits for the next request's timer to the microsecond; with NIO the event loops spin
    // while a timer is under a millisecond away, which a paced run's timers always are.
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    try {
      HistogramLogWriter log = null;
      if (options.out() != null) {
        Files.createDirectories(options.out());
        log = new HistogramLogWriter(options.out().resolve("latency.hlog").toFile());
      }
      LoadGenerator generator = new LoadGenerator(vertx, options, keyIndexes);
      LoadGenerator.Result result = generator.run(progress, log)
          .toCompletionStage().toCompletableFuture()
          .get(options.warmup().toMillis() + options.duration().toMillis() + TimeUnit.MINUTES.toMillis(2),
              TimeUnit.MILLISECONDS);
      if (generator.firstAnswers().failedAlike()) {
        progress.println("bench: " + generator.firstAnswers().reason());
        return 1;
      }
      ByteArrayOutputStream text = new ByteArrayOutputStream();
      LatencyReport.print(new PrintStream(text, true, StandardCharsets.UTF_8), options, result);
      out.print(text.toString(StandardCharsets.UTF_8));
      if (log != null) {
        log.close();
        Path dir = options.out();
        Files.writeString(dir.resolve("latency.txt"), text.toString(StandardCharsets.UTF_8));
        LatencyReport.writeChart(dir.resolve("latency.png"), options.workload().name().toLowerCase() + " at "
            + options.rateText() + ", " + options.connections() + " connections", result.latencyMicros());
        progress.println("wrote " + dir.resolve("latency.txt") + ", latency.hlog and latency.png");
      }
      return exitStatusOf(result);
    } catch (IOException e) {
      progress.println("bench: cannot write results: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      progress.println("bench: run failed: " + e);
      return 1;
    } finally {
      vertx.close();
    }
  }
}
