package io.quorumkv.ui;

import io.quorumkv.support.Await;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard's transfers table in a real headless Chromium, fed a topology change in progress
 * by a stand-in for a node (the dashboard's own files, a fixed {@code /v0/cluster}): it fits its
 * half-width panel, and shows "counting…" where a source has not yet counted what it sends (-1).
 * The same page shows the node's alarms (a full disk) and the requests it shed, by reason.
 */
class TransfersPanelTest {
  private static final int WINDOW_WIDTH = 1280;
  private static final String JOINER = "http://127.0.0.1:8083";

  static Vertx vertx;
  static HttpServer server;
  static HeadlessChromium chromium;

  @BeforeAll
  static void startPageAndBrowser() throws Exception {
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    new Dashboard(false, false).mount(router);
    router.get("/v0/cluster").handler(ctx -> ctx.json(clusterDuringAJoin()));
    router.get("/metrics").handler(ctx -> ctx.response().putHeader("content-type", "text/plain")
        .end("quorumkv_requests_shed_total{reason=\"memory\"} 17.0\n"
            + "quorumkv_requests_shed_total{reason=\"in_flight\"} 2048.0\n"
            + "quorumkv_requests_shed_total{reason=\"storage\"} 0.0\n"));
    router.get("/admin/jfr").handler(ctx -> ctx.json(new JsonArray()));
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get();
    chromium = HeadlessChromium.start(WINDOW_WIDTH, 1000);
  }

  @AfterAll
  static void stopEverything() {
    if (chromium != null) {
      chromium.close();
    }
    if (vertx != null) {
      vertx.close();
    }
  }

  @Test
  void transfersFitTheirPanelAndSayCountingForUncountedTotals() {
    chromium.driver.get("http://127.0.0.1:" + server.actualPort() + "/ui/");
    By rows = By.cssSelector("#transfers tbody tr");
    Await.until("the three transfers are shown", Duration.ofSeconds(30), () -> {
      try {
        return chromium.driver.findElements(rows).size() == 3;
      } catch (WebDriverException redrawn) {
        return false;
      }
    }, () -> chromium.driver.findElement(By.id("transfers")).getText());

    String shown = chromium.driver.findElement(By.id("transfers")).getText();
    List<String> cells = chromium.driver.findElements(By.cssSelector("#transfers td")).stream()
        .map(WebElement::getText).toList();
    assertTrue(cells.stream().noneMatch(cell -> List.of(cell.split("[\\s,]+")).contains("-1")), "a raw -1 shown: " + shown);
    assertEquals(List.of("0, counting…", "0 B, counting…"), cellsOfRow("127.0.0.1:8081", ".records, .bytes"), shown);
    assertEquals(List.of("123,456 of 1,000,000", "94.2 MiB of 762.9 MiB"),
        cellsOfRow("127.0.0.1:8080", ".records, .bytes"), shown);

    long tableWidth = (Long) chromium.driver.executeScript(
        "return document.querySelector('#transfers table').offsetWidth");
    long room = (Long) chromium.driver.executeScript("return document.getElementById('transfers').clientWidth");
    assertTrue(tableWidth <= room, "the transfers table is " + tableWidth + " px wide in " + room + " px");
    long panelOverflow = (Long) chromium.driver.executeScript(
        "const panel = document.getElementById('convergence-panel'); return panel.scrollWidth - panel.clientWidth");
    assertEquals(0, panelOverflow, "the panel scrolls sideways");
    assertEquals(List.of(), chromium.consoleErrors(), "console errors");
  }

  @Test
  void alarmsAndShedRequestsAreShown() {
    chromium.driver.get("http://127.0.0.1:" + server.actualPort() + "/ui/");
    Await.until("the alarm and the shed requests are shown", Duration.ofSeconds(30), () -> {
      try {
        return chromium.driver.findElement(By.id("alarms")).isDisplayed()
            && chromium.driver.findElement(By.id("requests-shed")).getText().startsWith("in_flight 2")
            && chromium.driver.findElement(By.id("requests-shed")).getText().contains("memory 17");
      } catch (WebDriverException redrawn) {
        return false;
      }
    }, () -> chromium.driver.findElement(By.id("topology-panel")).getText());
    assertTrue(chromium.driver.findElement(By.id("alarms")).getText().startsWith("alarm disk_full on http://127.0.0.1:8080"));
    assertEquals(List.of(), chromium.consoleErrors(), "console errors");
  }

  /** The text of the cells matching {@code selector} in the row of the transfer from {@code source}. */
  private static List<String> cellsOfRow(String source, String selector) {
    return chromium.driver.findElements(By.cssSelector("#transfers tbody tr")).stream()
        .filter(row -> row.getText().startsWith(source + " "))
        .flatMap(row -> row.findElements(By.cssSelector(selector)).stream()).map(WebElement::getText).toList();
  }

  /** What a node answers while 8083 joins: one source streaming, one not yet counted, one failed and retrying. */
  private static JsonObject clusterDuringAJoin() {
    JsonArray nodes = new JsonArray();
    for (String url : List.of("http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://127.0.0.1:8082", JOINER)) {
      nodes.add(new JsonObject().put("url", url).put("state", url.equals(JOINER) ? "joining" : "normal")
          .put("alive", true).put("self", url.endsWith(":8080")));
    }
    JsonArray transfers = new JsonArray()
        .add(transfer("http://127.0.0.1:8080", "streaming", 123_456, 98_765_432, 876_544, 701_234_568, null))
        .add(transfer("http://127.0.0.1:8081", "waiting", 0, 0, -1, -1, null))
        .add(transfer("http://127.0.0.1:8082", "failed", 20_000, 2_000_000, -1, -1,
            "Connection refused: 127.0.0.1/127.0.0.1:8082 while streaming records after key user-000000000123456789"));
    return new JsonObject().put("self", "http://127.0.0.1:8080").put("nodes", nodes).put("transfers", transfers)
        .put("hints", new JsonObject().put("pending", new JsonObject())
            .put("stored", 0).put("delivered", 0).put("dropped", 0))
        .put("readRepairs", new JsonObject().put("written", 0).put("failed", 0))
        .put("antiEntropy", new JsonObject().put("intervalMs", 10_000).put("peers", new JsonObject()))
        .put("alarms", new JsonArray().add(new JsonObject().put("kind", "disk_full").put("node", "http://127.0.0.1:8080")
            .put("since", System.currentTimeMillis()).put("message", "the disk is full")));
  }

  private static JsonObject transfer(String from, String state, long records, long bytes, long recordsRemaining,
                                     long bytesRemaining, String lastError) {
    return new JsonObject().put("from", from).put("to", JOINER).put("epoch", 7).put("state", state)
        .put("recordsSent", records).put("bytesSent", bytes).put("recordsRemaining", recordsRemaining)
        .put("bytesRemaining", bytesRemaining).put("lastError", lastError);
  }
}
