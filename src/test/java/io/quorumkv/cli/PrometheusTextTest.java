package io.quorumkv.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** admin metrics' reading of the Prometheus text format and of a histogram's quantiles. */
class PrometheusTextTest {
  @Test
  void samplesAreReadWithTheirLabelsEscapesAndSpecialValues() {
    PrometheusText text = PrometheusText.parse("""
        # HELP requests_total Requests.
        # TYPE requests_total counter
        requests_total{method="GET",code="200"} 7.0
        requests_total{method="PUT",code="201",} 3 1700000000000
        odd{path="a \\"quoted\\" \\\\ back\\nslash"} NaN
        up +Inf
        """);
    assertEquals(10.0, text.sum("requests_total"));
    assertEquals(3.0, text.sum("requests_total", sample -> sample.label("method").equals("PUT")));
    assertEquals("a \"quoted\" \\ back\nslash", text.samples("odd").get(0).label("path"));
    assertEquals(0.0, text.sum("odd"), "NaN is left out of a sum");
    assertEquals(Double.POSITIVE_INFINITY, text.samples("up").get(0).value());
    assertTrue(text.has("up"));
    assertFalse(text.has("down"));
  }

  @Test
  void aLineThatIsNoSampleIsRefusedByName() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> PrometheusText.parse("broken{label=unquoted} 1"));
    assertTrue(refused.getMessage().contains("broken{label=unquoted}"), refused.getMessage());
    assertThrows(IllegalArgumentException.class, () -> PrometheusText.parse("name notanumber"));
  }

  @Test
  void quantilesAreInterpolatedWithinTheirBucketAsPrometheusDoes() {
    // 100 observations: 50 up to 1 ms, 40 more up to 2 ms, 10 more up to 10 ms, none above.
    Map<Double, Double> histogram = Map.of(0.001, 50.0, 0.002, 90.0, 0.01, 100.0, Double.POSITIVE_INFINITY, 100.0);
    assertEquals(0.001, MetricsSummary.quantile(histogram, 0.5), 1e-12);
    assertEquals(0.0015, MetricsSummary.quantile(histogram, 0.7), 1e-12);
    assertEquals(0.002 + 0.008 * 0.9, MetricsSummary.quantile(histogram, 0.99), 1e-12);
    assertEquals(Double.NaN, MetricsSummary.quantile(Map.of(), 0.5));
    assertEquals(0.01, MetricsSummary.quantile(Map.of(0.01, 5.0, Double.POSITIVE_INFINITY, 10.0), 0.99),
        "in the open bucket: the highest finite bound");
  }
}
