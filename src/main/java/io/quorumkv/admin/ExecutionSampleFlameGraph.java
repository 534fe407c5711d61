package io.quorumkv.admin;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import one.convert.Arguments;
import one.convert.CallStack;
import one.convert.FlameGraph;
import one.convert.Frame;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The CPU flame graph of a JDK recording: its {@code jdk.ExecutionSample} events alone (threads
 * sampled while running Java code), drawn by jfr-converter's {@link FlameGraph} like the other
 * kinds. Read with the JDK's own reader because jfr-converter (4.5) cannot select them: its
 * {@code --cpu} keeps only samples in async-profiler's {@code STATE_DEFAULT} thread state, which
 * the JDK never writes (so the graph came out empty), and it reads {@code jdk.NativeMethodSample}
 * as execution samples too, in the same {@code STATE_RUNNABLE}.
 */
final class ExecutionSampleFlameGraph {
  private static final String EVENT = "jdk.ExecutionSample";

  private ExecutionSampleFlameGraph() {
  }

  static void convert(Path jfr, Path page, String title) throws IOException {
    FlameGraph graph = new FlameGraph(new Arguments("--title", title));
    CallStack stack = new CallStack();
    try (RecordingFile recording = new RecordingFile(jfr)) {
      while (recording.hasMoreEvents()) {
        RecordedEvent event = recording.readEvent();
        RecordedStackTrace trace = event.getStackTrace();
        if (trace == null || !event.getEventType().getName().equals(EVENT)) {
          continue;
        }
        List<RecordedFrame> frames = trace.getFrames();
        for (int i = frames.size() - 1; i >= 0; i--) { // the JDK lists the top frame first
          RecordedFrame frame = frames.get(i);
          stack.push(className(frame) + "." + frame.getMethod().getName(), typeOf(frame));
        }
        graph.addSample(stack, 1);
        stack.clear();
      }
    }
    try (PrintStream out = new PrintStream(page.toFile(), StandardCharsets.UTF_8)) {
      graph.dump(out);
    }
  }

  /**
   * The class name as jfr-converter writes it, so that a search matches in every kind of graph:
   * with slashes ({@code io/quorumkv/http/EntityHandler}), but a hidden class's (a lambda's,
   * which already holds a slash) as JFR names it.
   */
  private static String className(RecordedFrame frame) {
    String name = frame.getMethod().getType().getName();
    return name.indexOf('/') < 0 ? name.replace('.', '/') : name;
  }

  /** The converter's frame type (its colour) for the JDK's frame type names. */
  private static byte typeOf(RecordedFrame frame) {
    return switch (frame.getType()) {
      case "Interpreted" -> Frame.TYPE_INTERPRETED;
      case "Inlined" -> Frame.TYPE_INLINED;
      case "Native" -> Frame.TYPE_NATIVE;
      default -> Frame.TYPE_JIT_COMPILED;
    };
  }
}
