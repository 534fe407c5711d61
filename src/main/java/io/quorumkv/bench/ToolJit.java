package io.quorumkv.bench;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which of HotSpot's JIT compilers this tool's own JVM uses. A cold tool on the machine of the
 * server it measures spends half its CPU in C2 compilations for its first 20-30 s, CPU the server
 * then lacks; with C1 only it compiles in a fraction of that but sends fewer requests once warm.
 * So paced runs up to {@value #C1_MAX_PACED_RATE} requests a second use C1 only, faster ones and
 * saturation runs keep C2 ({@link LoadOptions#toolJit()}): a JVM started with both relaunches the
 * tool in one with {@value #C1_ONLY}.
 */
enum ToolJit {
  /** Quick compilations only: less CPU taken from a server on the same machine. */
  C1,
  /** HotSpot's default, C1 then C2: faster code once warm. */
  C2;

  static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
  /**
   * Measured on 2 cores against a node on the same machine (64 connections, PUTs): with C1 only
   * the tool kept 5,000 req/s and fell behind at 8,000 and 13,576, where C2 kept the rate.
   */
  static final int C1_MAX_PACED_RATE = 5_000;

  static ToolJit parse(String text) {
    return switch (text) {
      case "c1" -> C1;
      case "c2" -> C2;
      default -> throw new IllegalArgumentException("--tool-jit must be c1 or c2, got '" + text + "'");
    };
  }

  /** The compilers of the running JVM, whatever started it. */
  static ToolJit ofThisJvm() {
    HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    return "1".equals(hotSpot.getVMOption("TieredStopAtLevel").getValue()) ? C1 : C2;
  }

  String describe() {
    return this == C1 ? "C1 only" : "C1 and C2";
  }

  /**
   * Runs {@code bench args} in a new JVM with this JVM's options plus {@link #C1_ONLY}, its output
   * on this one's; returns its exit status. The child is stopped if this JVM is.
   */
  static int relaunchWithC1Only(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add(C1_ONLY);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.quorumkv.Main");
    command.add("bench");
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    // Their options are among this JVM's input arguments already.
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("JDK_JAVA_OPTIONS");
    Process child = builder.start();
    Thread stopChild = new Thread(child::destroy);
    Runtime.getRuntime().addShutdownHook(stopChild);
    return child.waitFor();
  }
}
