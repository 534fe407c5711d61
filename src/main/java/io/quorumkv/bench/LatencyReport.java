package io.quorumkv.bench;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/** A load run's results in wrk2's output format, and its latency-by-percentile chart as a PNG. */
final class LatencyReport {
  private static final double[] SUMMARY = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100};
  private static final int WIDTH = 900;
  private static final int HEIGHT = 500;
  private static final int MARGIN = 70;
  private static final double MAX_NINES = 5;

  private LatencyReport() {
  }

  static final String TOOL_BEHIND = "THE LOAD TOOL COULD NOT KEEP THE RATE: its own event loops were held up (busy,"
      + " short of CPU or in GC), so these figures are the tool's, not the server's. Give it more CPU (another"
      + " machine, fewer connections) or lower --rate.";

  static void print(PrintStream out, LoadOptions options, LoadGenerator.Result result) {
    Histogram h = result.latencyMicros();
    out.printf("Running %s test @ %s (after a %s warm-up at the same rate)%n", humanDuration(options.duration().toMillis()),
        String.join(", ", options.urls().stream().map(Object::toString).toList()),
        humanDuration(options.warmup().toMillis()));
    out.printf("  %d connections, target %s, workload %s%n", options.connections(), options.rateText(),
        options.workload().name().toLowerCase());
    out.println(result.shed() > 0 ? "  Latency Distribution of the admitted requests (every answer but 503)"
        : "  Latency Distribution (HdrHistogram - Recorded Latency)");
    for (double p : SUMMARY) {
      out.printf(" %7.3f%% %10.3fms%n", p, h.getValueAtPercentile(p) / 1000.0);
    }
    out.println();
    out.println("  Detailed Percentile spectrum:");
    h.outputPercentileDistribution(out, 5, 1000.0);
    out.println("----------------------------------------------------------");
    Histogram sent = result.sentMicros();
    out.printf("  From sending (the server's time, without a busy connection's backlog): p50 %.3fms, p99 %.3fms,"
        + " p99.9 %.3fms%n", sent.getValueAtPercentile(50) / 1000.0, sent.getValueAtPercentile(99) / 1000.0,
        sent.getValueAtPercentile(99.9) / 1000.0);
    out.printf("  %,d requests in %.2fs%n", result.requests(), result.elapsedNanos() / 1e9);
    if (result.non2xx() > 0) {
      out.printf("  Non-2xx or 3xx responses: %d%n", result.non2xx());
    }
    if (!result.tally().statuses().isEmpty()) {
      out.printf("  Answers from 300 up by status: %s%n", String.join(", ", result.tally().statuses().entrySet().stream()
          .map(entry -> String.format("%d: %,d", entry.getKey(), entry.getValue())).toList()));
    }
    if (result.shed() > 0 || result.heldBack() > 0) {
      out.printf("  Refused with 503: %d; held back by Retry-After (not sent): %d (%s)%n", result.shed(),
          result.heldBack(), options.honourRetryAfter() ? "honoured" : "ignored");
      out.printf("Admitted requests/sec: %10.2f%n", result.admittedPerSecond());
    }
    if (result.unsent() > 0) {
      out.printf("  Due but not sent by the end: %d%n", result.unsent());
    }
    out.printf("  This tool's busiest event loop was held up %.1f%% of the time%n", 100 * result.toolStalledShare());
    out.printf("  This tool (JIT: %s) used %.2f cores; its JIT compilers ran %.1f s%n",
        ToolJit.ofThisJvm().describe(), result.toolCores(), result.toolCpu().compilingMillis() / 1000.0);
    if (result.errors() > 0) {
      out.printf("  Socket errors or timeouts: %d%n", result.errors());
      for (String line : result.tally().describeFailures()) {
        out.println("    " + line);
      }
    }
    out.printf("Requests/sec: %10.2f%n", result.requestsPerSecond());
    if (result.toolBehind()) {
      out.println(TOOL_BEHIND);
    } else if (result.toolStalledShare() > LoadGenerator.Result.TOOL_STALLS_VISIBLE_SHARE) {
      out.println("Note: this tool was held up over 5% of the time; its stalls may show in the tail latencies.");
    }
  }

  /** Latency (ms) against percentile on the usual log scale of 1 / (1 - percentile). */
  static void writeChart(Path png, String title, Histogram h) throws IOException {
    List<double[]> points = new ArrayList<>();
    for (HistogramIterationValue v : h.percentiles(5)) {
      double p = v.getPercentileLevelIteratedTo() / 100.0;
      if (p >= 1) {
        break;
      }
      points.add(new double[] {Math.min(MAX_NINES, Math.log10(1 / (1 - p))), v.getValueIteratedTo() / 1000.0});
    }
    double maxMs = Math.max(0.001, h.getMaxValue() / 1000.0) * 1.1;
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int plotWidth = WIDTH - 2 * MARGIN;
    int plotHeight = HEIGHT - 2 * MARGIN;
    g.setColor(new Color(225, 225, 225));
    String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
    for (int nines = 0; nines <= MAX_NINES; nines++) {
      int x = MARGIN + (int) (plotWidth * nines / MAX_NINES);
      g.setColor(new Color(225, 225, 225));
      g.drawLine(x, MARGIN, x, MARGIN + plotHeight);
      g.setColor(Color.DARK_GRAY);
      g.drawString(labels[nines], x - 15, MARGIN + plotHeight + 18);
    }
    for (int i = 0; i <= 5; i++) {
      int y = MARGIN + plotHeight - plotHeight * i / 5;
      g.setColor(new Color(225, 225, 225));
      g.drawLine(MARGIN, y, MARGIN + plotWidth, y);
      g.setColor(Color.DARK_GRAY);
      g.drawString(String.format("%.2f", maxMs * i / 5), 10, y + 4);
    }
    g.drawString("latency (ms)", 10, MARGIN - 12);
    g.drawString("percentile", MARGIN + plotWidth / 2 - 30, HEIGHT - 20);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(title, MARGIN, 30);
    g.setColor(new Color(31, 119, 180));
    g.setStroke(new BasicStroke(2f));
    int[] previous = null;
    for (double[] point : points) {
      int x = MARGIN + (int) (plotWidth * point[0] / MAX_NINES);
      int y = MARGIN + plotHeight - (int) (plotHeight * point[1] / maxMs);
      if (previous != null) {
        g.drawLine(previous[0], previous[1], x, y);
      }
      previous = new int[] {x, y};
    }
    g.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static String humanDuration(long millis) {
    return millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms";
  }
}
