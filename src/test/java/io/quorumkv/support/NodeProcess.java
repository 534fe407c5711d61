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

/** A node started the way an operator starts it: {@code io.quorumkv.Main} in its own JVM. */
public final class NodeProcess implements AutoCloseable {
  private static final Pattern READY = Pattern.compile("ready on port (\\d+)");

  private final Process process;
  private final Path stderr;
  private int port = -1;

  private NodeProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
  }

  /** Starts {@code Main} with the arguments; its stderr goes to {@code logFile}. */
  public static NodeProcess launch(Path logFile, String... args) throws IOException {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", classpath, "io.quorumkv.Main"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(logFile.toFile())
        .start();
    return new NodeProcess(process, logFile);
  }

  public static NodeProcess launchWithConfig(Path confFile, Path logFile) throws IOException {
    return launch(logFile, "--config", confFile.toString());
  }

  /** Waits for the ready line and returns the HTTP port it names. */
  public int awaitReady() {
    Await.until("the node prints its ready line (or exits)", Duration.ofSeconds(60), () -> {
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
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("node did not exit: " + log());
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
    process.waitFor(30, TimeUnit.SECONDS);
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
    }
  }
}
