package io.quorumkv.admin;

import io.quorumkv.support.Await;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flame graphs of a JDK recording in which one thread runs Java code and another waits in a
 * native method: the CPU graph holds the first only, the wall graph both.
 */
class FlameKindTest {
  private static final String SPINNER = FlameKindTest.class.getName() + ".spinInJava";
  private static final String NATIVE_WAIT = "sun.nio.ch.Net.accept";

  @TempDir
  static Path dir;
  static Path jfr;
  /** Where the spinning leaves its result, so the JIT cannot drop the loop. */
  private static volatile double sink;

  @BeforeAll
  static void record() throws Exception {
    try (Recording recording = new Recording();
         ServerSocket nobodyCalls = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(20));
      recording.start();
      Thread waiter = new Thread(() -> {
        try {
          nobodyCalls.accept();
        } catch (IOException closed) {
          // the test is over
        }
      }, "flame-native-waiter");
      waiter.start();
      jfr = dir.resolve("samples.jfr");
      Await.until("the recording holds samples of both threads", Duration.ofSeconds(30), () -> {
        spinInJava();
        dump(recording);
        return countSamples("jdk.ExecutionSample", SPINNER) >= 5
            && countSamples("jdk.NativeMethodSample", NATIVE_WAIT) >= 1;
      });
      recording.stop();
      dump(recording);
    }
  }

  @Test
  void cpuHoldsTheJavaCodeAndNotTheNativeWait() throws IOException {
    List<String> frames = frames(FlameKind.CPU);
    assertTrue(frames.contains(SPINNER), "the spinning thread: " + frames);
    assertFalse(frames.stream().anyMatch(frame -> frame.startsWith(NATIVE_WAIT)), "a native-method sample in " + frames);
  }

  @Test
  void wallHoldsBoth() throws IOException {
    List<String> frames = frames(FlameKind.WALL);
    assertTrue(frames.contains(SPINNER), "the spinning thread: " + frames);
    assertTrue(frames.stream().anyMatch(frame -> frame.startsWith(NATIVE_WAIT)), "the waiting thread: " + frames);
  }

  @Test
  void theCommandLineWritesThePageOfEachKind() throws IOException {
    for (FlameKind kind : FlameKind.values()) {
      Path page = dir.resolve("command-" + kind.lowerCaseName() + ".html");
      assertEquals(0, FlameGraphCommand.run(List.of(kind.lowerCaseName(), jfr.toString(), page.toString())), kind.name());
      assertTrue(Files.readString(page).contains("const cpool"), kind + ": not a flame graph page");
    }
    String unwritten = dir.resolve("unwritten.html").toString();
    assertEquals(2, FlameGraphCommand.run(List.of("heat", jfr.toString(), unwritten)));
    assertEquals(2, FlameGraphCommand.run(List.of("cpu")));
    assertEquals(1, FlameGraphCommand.run(List.of("cpu", dir.resolve("absent.jfr").toString(), unwritten)));
    assertFalse(Files.exists(Path.of(unwritten)), "a page written for a failed conversion");
  }

  private static List<String> frames(FlameKind kind) throws IOException {
    Path page = dir.resolve(kind.lowerCaseName() + ".html");
    kind.convert(jfr, page, "test " + kind.lowerCaseName());
    return FlameGraphPage.frameNames(Files.readString(page));
  }

  /** Java code on the test thread for about 100 ms, in a method of its own name. */
  private static void spinInJava() {
    long end = System.nanoTime() + 100_000_000L;
    double x = 0;
    while (System.nanoTime() < end) {
      for (int i = 1; i < 10_000; i++) {
        x += Math.sqrt(i);
      }
    }
    sink = x;
  }

  private static void dump(Recording recording) {
    try {
      recording.dump(jfr);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Events of that type in the recording whose stack has a frame starting with {@code frame}. */
  private static long countSamples(String type, String frame) {
    try {
      return RecordingFile.readAllEvents(jfr).stream().filter(event -> event.getEventType().getName().equals(type))
          .filter(event -> hasFrame(event, frame)).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean hasFrame(RecordedEvent event, String frame) {
    return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
        .anyMatch(f -> (f.getMethod().getType().getName() + "." + f.getMethod().getName()).startsWith(frame));
  }
}
