package io.quorumkv.support;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node started the way an operator starts it: {@code io.quorumkv.Main} in its own JVM,
 * optionally on a {@link FakeClock}.
 */
public final class NodeProcess implements AutoCloseable {
  private static final Pattern READY = Pattern.compile("ready on port (\\d+)");
  /**
   * A node of a test lives for seconds to minutes, where HotSpot's optimizing compiler costs more
   * CPU than it saves: with the quick compiler only, one compiler thread and no perf-data file,
   * CrashTest's three nodes took 28% less CPU (66.6 against 93.3 s) and served twice the writes.
   * The same as the test JVMs' argLine in pom.xml.
   */
  private static final List<String> TEST_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
      "-XX:-UsePerfData");

  private final Process process;
  private final Path stderr;
  private final boolean onFakeClock;
  private int port = -1;

  private NodeProcess(Process process, Path stderr, boolean onFakeClock) {
    this.process = process;
    this.stderr = stderr;
    this.onFakeClock = onFakeClock;
  }

  /** Starts {@code Main} with the arguments; its stderr goes to {@code logFile}. */
  public static NodeProcess launch(Path logFile, String... args) throws IOException {
    return launch(logFile, null, List.of(), args);
  }

  /** Like {@link #launch(Path, String...)}, with extra JVM options (such as where JFR keeps its repository). */
  public static NodeProcess launch(Path logFile, List<String> jvmOptions, String... args) throws IOException {
    return launch(logFile, null, jvmOptions, args);
  }

  /** Starts {@code Main} with the arguments, on the fake clock unless it is null; stderr goes to {@code logFile}. */
  public static NodeProcess launch(Path logFile, FakeClock clock, String... args) throws IOException {
    return launch(logFile, clock, List.of(), args);
  }

  /** Every launch but the one that makes {@link NodeClassArchive} maps its classes. */
  private static NodeProcess launch(Path logFile, FakeClock clock, List<String> jvmOptions, String... args)
      throws IOException {
    NodeClassArchive archive = NodeClassArchive.get();
    List<String> options = new ArrayList<>(archive.jvmOptions);
    options.addAll(jvmOptions);
    return start(logFile, clock, archive.classpath, options, args);
  }

  /** A launch that does not use the class archive: how {@link NodeClassArchive} makes it. */
  static NodeProcess launchUnarchived(Path logFile, String classpath, List<String> jvmOptions, String... args)
      throws IOException {
    return start(logFile, null, classpath, jvmOptions, args);
  }

  private static NodeProcess start(Path logFile, FakeClock clock, String classpath, List<String> jvmOptions,
                                   String... args) throws IOException {
    TestTier.requireProcessTier();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+ExitOnOutOfMemoryError"));
    command.addAll(TEST_JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", classpath, "io.quorumkv.Main"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(logFile.toFile());
    if (clock != null) {
      builder.environment().putAll(clock.environment());
    }
    return new NodeProcess(builder.start(), logFile, clock != null);
  }

  public static NodeProcess launchWithConfig(Path confFile, Path logFile) throws IOException {
    return launchWithConfig(confFile, logFile, null);
  }

  /** Starts a node from its conf file, on the fake clock unless it is null. */
  public static NodeProcess launchWithConfig(Path confFile, Path logFile, FakeClock clock) throws IOException {
    return launch(logFile, clock, "--config", confFile.toString());
  }

  /** Like {@link #launchWithConfig(Path, Path, FakeClock)}, with extra JVM options (such as a smaller {@code -Xmx}). */
  public static NodeProcess launchWithConfig(Path confFile, Path logFile, FakeClock clock, List<String> jvmOptions)
      throws IOException {
    return launch(logFile, clock, jvmOptions, "--config", confFile.toString());
  }

  /** Waits for the ready line and returns the HTTP port it names. */
  public int awaitReady() {
    return awaitReady(Duration.ofSeconds(60));
  }

  /** Waits at most {@code deadline} for the ready line and returns the HTTP port it names. */
  public int awaitReady(Duration deadline) {
    Await.until("the node prints its ready line (or exits)", deadline, () -> {
      Matcher matcher = READY.matcher(log());
      if (matcher.find()) {
        port = Integer.parseInt(matcher.group(1));
        return true;
      }
      if (!process.isAlive()) {
        throw new AssertionError("node exited with " + process.exitValue() + ": " + log());
      }
      return false;
    });
    return port;
  }

  public Http http() {
    return new Http("http://127.0.0.1:" + port);
  }

  /** Waits for the process to exit by itself and returns its exit code. */
  public int awaitExit() throws InterruptedException {
    return awaitExit(Duration.ofSeconds(60));
  }

  /** Waits at most {@code timeout} for the process to exit by itself (else kills it and fails) and returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      String log = log();
      throw new AssertionError("node did not exit within " + timeout + "; its log ends with: "
          + log.substring(Math.max(0, log.length() - 4_000)));
    }
    return process.exitValue();
  }

  /** SIGTERM, then waits for the exit. */
  public int terminate() throws InterruptedException {
    process.destroy();
    return awaitExit();
  }

  /** SIGKILL: no shutdown hook, no flush. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("node " + pid() + " still runs 30 s after SIGKILL");
    }
    afterExit();
  }

  /** Removes what a process killed on a fake clock leaves behind. */
  private void afterExit() {
    if (onFakeClock) {
      FakeClock.releaseSharedMemory(pid());
    }
  }

  /** The operating-system process id, for signals such as SIGSTOP. */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public String log() {
    try {
      return Files.readString(stderr, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  public static Path writeConf(Path dir, String name, String json) throws IOException {
    return Files.writeString(dir.resolve(name), json, StandardCharsets.UTF_8);
  }

  public static String jsonPath(Path path) {
    return path.toString().replace(File.separatorChar, '/');
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!process.isAlive()) {
      afterExit();
    }
  }
}
