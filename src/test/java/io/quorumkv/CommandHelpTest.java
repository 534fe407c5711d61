package io.quorumkv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command of the jar answers --help with its usage and status 0, and an unknown argument with 2. */
class CommandHelpTest {
  @TempDir
  Path dir;

  @Test
  void everyCommandAnswersHelpWithItsUsageAndStatus0() throws Exception {
    for (List<String> args : List.of(List.of("--help"), List.of("-h"), List.of("restore", "--help"),
        List.of("flame", "--help"), List.of("bench", "--help"), List.of("admin", "--help"))) {
      Run run = run(args);
      assertEquals(0, run.status(), args + " exit status; stderr: " + run.stderr());
      String command = args.size() == 1 ? "usage: java -jar quorumkv.jar" : "usage: java -jar quorumkv.jar " + args.get(0);
      assertTrue(run.stdout().startsWith(command), args + " printed: " + run.stdout());
      assertEquals("", run.stderr(), args + " complained");
    }
  }

  @Test
  void anUnknownArgumentIsRefusedWithStatus2AndTheUsage() throws Exception {
    for (List<String> args : List.of(List.of("--bogus"), List.of("restore", "--bogus"), List.of("flame", "--bogus"), List.of("admin", "--bogus"))) {
      Run run = run(args);
      assertEquals(2, run.status(), args + " exit status");
      assertTrue(run.stderr().contains("usage: java -jar quorumkv.jar"), args + " printed: " + run.stderr());
    }
  }

  private record Run(int status, String stdout, String stderr) {
  }

  /** {@code Main} with {@code args} in a JVM of its own, as {@code java -jar} runs it. */
  private Run run(List<String> args) throws Exception {
    Path stdout = Files.createTempFile(dir, "stdout", ".txt");
    Path stderr = Files.createTempFile(dir, "stderr", ".txt");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), "io.quorumkv.Main"));
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    boolean finished = process.waitFor(60, TimeUnit.SECONDS);
    process.destroyForcibly();
    assertTrue(finished, args + " finished");
    return new Run(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
  }
}
