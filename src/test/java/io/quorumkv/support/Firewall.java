package io.quorumkv.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Network partitions between loopback addresses on this machine, with iptables: a cut drops every
 * packet from one address to another in the {@code INPUT} chain (loopback traffic passes it), in
 * both directions. Every rule carries a comment unique to this instance, so {@link #healAll} and
 * {@link #close} remove exactly this instance's rules and nobody else's; a shutdown hook removes
 * them too if the JVM exits first. Needs root (CI runs as root); see {@link #unavailableReason}.
 */
public final class Firewall implements AutoCloseable {
  private static final long COMMAND_TIMEOUT_SECONDS = 30;

  private final String tag = "quorumkv-test-" + UUID.randomUUID().toString().substring(0, 8);
  private final Thread healOnExit = new Thread(this::healQuietly, "firewall-cleanup");
  private final List<String> cuts = new ArrayList<>();

  private Firewall() {
  }

  /**
   * Why partitions cannot be made here ({@code iptables} missing, not permitted), or null when
   * they can. Checks with {@code iptables -L -n}, which needs the same rights as adding a rule.
   */
  public static String unavailableReason() {
    try {
      Result listing = run("iptables", "-w", "-L", "INPUT", "-n");
      return listing.exitCode == 0 ? null : "'iptables -L -n' failed (" + listing.exitCode + "): " + listing.output.trim();
    } catch (IOException e) {
      return "iptables cannot be run: " + e.getMessage();
    }
  }

  /** A firewall ready to cut; check {@link #unavailableReason} first. */
  public static Firewall open() {
    Firewall firewall = new Firewall();
    Runtime.getRuntime().addShutdownHook(firewall.healOnExit);
    return firewall;
  }

  public String tag() {
    return tag;
  }

  /** Drops all traffic between the two addresses, both ways, until {@link #healAll}. */
  public synchronized void cut(String a, String b) {
    drop(a, b);
    drop(b, a);
    cuts.add(a + " x " + b);
  }

  /** The cuts in force, for a report. */
  public synchronized List<String> cuts() {
    return List.copyOf(cuts);
  }

  /** Removes every rule of this instance, including any a failed call may have left. */
  public synchronized void healAll() {
    List<String[]> rules = new ArrayList<>();
    for (String line : checked("iptables", "-w", "-S", "INPUT").split("\n")) {
      List<String> words = Arrays.asList(line.trim().split("\\s+"));
      int comment = words.indexOf("--comment");
      if (words.size() > 1 && words.get(0).equals("-A") && comment > 0 && comment + 1 < words.size()
          && words.get(comment + 1).replace("\"", "").equals(tag)) {
        List<String> delete = new ArrayList<>(List.of("iptables", "-w", "-D"));
        delete.addAll(words.subList(1, words.size()));
        rules.add(delete.toArray(String[]::new));
      }
    }
    for (String[] rule : rules) {
      checked(rule);
    }
    cuts.clear();
  }

  @Override
  public void close() {
    healAll();
    try {
      Runtime.getRuntime().removeShutdownHook(healOnExit);
    } catch (IllegalStateException alreadyExiting) {
      // The hook runs or ran.
    }
  }

  private void drop(String from, String to) {
    checked("iptables", "-w", "-I", "INPUT", "-s", from, "-d", to, "-m", "comment", "--comment", tag, "-j", "DROP");
  }

  private void healQuietly() {
    try {
      healAll();
    } catch (RuntimeException e) {
      System.err.println("firewall: could not remove the rules tagged " + tag + ": " + e.getMessage());
    }
  }

  private static String checked(String... command) {
    try {
      Result result = run(command);
      if (result.exitCode != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed (" + result.exitCode + "): " + result.output.trim());
      }
      return result.output;
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + " could not run: " + e.getMessage(), e);
    }
  }

  private record Result(int exitCode, String output) {
  }

  private static Result run(String... command) throws IOException {
    // Output to a file, not a pipe: a full pipe could block the command, and reading one could block us.
    Path output = Files.createTempFile("firewall", ".out");
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
      if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s");
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + String.join(" ", command), e);
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
