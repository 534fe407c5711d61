package io.quorumkv.bench;

import io.quorumkv.support.TestNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load tool against a real node: the rate it sends, its wrk2-style output and the files it writes. */
class LoadToolTest {
  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(dataDir);
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void sendsTheAskedRateAndReportsPercentiles(@TempDir Path out) throws Exception {
    int rate = 2_000;
    int seconds = 3;
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    int status = LoadTool.run(List.of("--url", "http://127.0.0.1:" + node.port(), "--rate", Integer.toString(rate),
        "--connections", "8", "--duration", seconds + "s", "--warmup", "1s", "--workload", "mixed", "--keys", "500", "--out", out.toString()),
        new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(progress, true, StandardCharsets.UTF_8));
    String report = stdout.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, report + progress);

    long requests = Long.parseLong(match(report, "([\\d,]+) requests in").replace(",", ""));
    assertTrue(Math.abs(requests - rate * seconds) <= rate * seconds * 0.02, "sent " + requests + " requests");
    double achieved = Double.parseDouble(match(report, "Requests/sec:\\s+([\\d.]+)"));
    assertTrue(Math.abs(achieved - rate) <= rate * 0.05, "achieved " + achieved + " req/s for " + rate);

    assertTrue(report.contains("Latency Distribution (HdrHistogram - Recorded Latency)"), report);
    assertTrue(report.contains(" 99.900%"), report);
    assertTrue(report.contains("Detailed Percentile spectrum:"), report);
    assertTrue(report.contains("#[Mean"), report);
    assertTrue(progress.toString(StandardCharsets.UTF_8).contains("req/s this second"), "live progress line");

    assertEquals(report, Files.readString(out.resolve("latency.txt")));
    assertTrue(Files.readString(out.resolve("latency.hlog")).contains("#[StartTime:"));
    BufferedImage chart = ImageIO.read(out.resolve("latency.png").toFile());
    assertNotNull(chart, "latency.png is a PNG");
    assertEquals(900, chart.getWidth());
  }

  @Test
  void badOptionsExitWith2AndUsage() {
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    int status = LoadTool.run(List.of("--url", "http://127.0.0.1:1", "--rate", "-5"),
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(progress, true, StandardCharsets.UTF_8));
    assertEquals(2, status);
    assertTrue(progress.toString(StandardCharsets.UTF_8).contains("usage: java -jar quorumkv.jar bench"));
  }

  private static String match(String text, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    assertTrue(matcher.find(), "no '" + regex + "' in:\n" + text);
    return matcher.group(1);
  }
}
