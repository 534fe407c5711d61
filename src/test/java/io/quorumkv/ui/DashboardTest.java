package io.quorumkv.ui;

import io.quorumkv.support.Await;
import io.quorumkv.support.ClusterExtension;
import io.quorumkv.admin.MembershipAdmin;
import io.quorumkv.support.Http;
import io.quorumkv.support.ProcessCluster;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard at {@code /ui/} in a real headless Chromium, against three node processes with an
 * admin token: the page loads with no console error, shows every node alive, a rising request count
 * under load, starts and stops a JFR recording and opens its flame graph, shows a killed node
 * down within seconds, and once that node is removed reads the two others without an error. The steps share one cluster and one browser, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@ProcessTier
class DashboardTest {
  private static final String TOKEN = "dashboard-" + UUID.randomUUID();
  private static final Duration PAGE_WAIT = Duration.ofSeconds(30);
  /** Membership declares a silent node down after 5 s (hazelcast.maxNoHeartbeatSeconds); the page polls every 2 s. */
  private static final Duration DOWN_SHOWN_WITHIN = Duration.ofSeconds(15);
  private static final int LOAD_THREADS = 3;
  private static final Path SCREENSHOTS = Path.of("target", "dashboard");

  @RegisterExtension
  static final ClusterExtension clusters = new ClusterExtension();
  static ProcessCluster cluster;
  static HeadlessChromium chromium;
  static ChromeDriver browser;

  private static final AtomicBoolean loading = new AtomicBoolean();
  private static final AtomicLong loadAnswers = new AtomicLong();
  private static final List<Thread> loaders = new ArrayList<>();

  @BeforeAll
  static void startClusterAndBrowser() throws Exception {
    chromium = HeadlessChromium.start(1400, 1400);
    browser = chromium.driver;
    // A generous start: on a busy 2-core machine three JVMs starting at once take a while.
    cluster = clusters.start(new ProcessCluster.Options(3).conf(new JsonObject().put("adminToken", TOKEN))
        .startTimeout(Duration.ofSeconds(120)));
  }

  @AfterAll
  static void stopEverything() throws InterruptedException {
    stopLoad();
    if (chromium != null) {
      chromium.close();
    }
  }

  @Test
  @Order(1)
  void pageLoadsWithoutConsoleErrorsAndShowsThreeNodesAlive() {
    browser.get(cluster.url(0) + "/ui/");
    awaitPage("every node shows alive", () -> aliveShown().equals(Set.copyOf(cluster.urls())),
        () -> "alive on the page: " + aliveShown());
    for (String url : cluster.urls()) {
      WebElement row = nodeRow(url);
      assertEquals("normal", row.findElement(By.className("state")).getText(), url);
      assertEquals(url.equals(cluster.url(0)), row.getText().contains("this node"), url + ": " + row.getText());
    }
    assertEquals("3 of 3 nodes alive", browser.findElement(By.id("alive-summary")).getText());
    assertEquals("replication factor 3, default from 3", browser.findElement(By.id("replication")).getText());
    awaitPage("every endpoint read", () -> text("status").startsWith("updated"), () -> text("status"));
    assertEquals(2, browser.findElements(By.cssSelector("#rate-chart canvas, #latency-chart canvas")).size(),
        "both charts drawn");
    assertEquals("no transfers in progress", text("transfers"));
    assertNoConsoleErrors();
  }

  @Test
  @Order(2)
  void requestCountRisesWhileLoadRuns() throws Exception {
    startLoad();
    awaitRises(3);
    assertTrue(loadAnswers.get() > 0, "the load got answers");
    awaitPage("a PUT rate and p99 latency are shown", () -> number(operationCell("PUT /v0/entity", 2)) > 0
        && number(operationCell("PUT /v0/entity", 4)) > 0, () -> operationRow("PUT /v0/entity"));
    awaitRises(6); // enough points for the charts to show the load as lines, for the picture
    chromium.screenshot(SCREENSHOTS.resolve("dashboard-under-load.png"));
    assertNoConsoleErrors();
  }

  @Test
  @Order(3)
  void jfrRecordingStartedAndStoppedFromThePageOpensAFlameGraph() throws Exception {
    awaitPage("the page asks for the admin token", () -> text("admin-reason").contains("admin token"),
        () -> text("admin-reason"));
    assertTrue(text("admin-reason").contains("at the top of the page"), text("admin-reason"));
    assertEquals(1, browser.findElements(By.cssSelector("header #token")).size(),
        "the token field is at the top of the page, where the messages send the reader");
    assertFalse(browser.findElement(By.id("jfr-start")).isEnabled(), "start is disabled without the token");

    browser.findElement(By.id("token")).sendKeys(TOKEN);
    browser.findElement(By.id("token-save")).click();
    awaitPage("start is enabled once the token is accepted", () -> browser.findElement(By.id("jfr-start")).isEnabled(),
        () -> text("admin-reason"));
    assertFalse(browser.getCurrentUrl().contains(TOKEN), "the token is not in the URL");
    assertEquals("{}", browser.executeScript("return JSON.stringify(localStorage)"), "nothing in local storage");
    assertEquals("", browser.executeScript("return document.cookie"), "no cookie");
    assertFalse(browser.getPageSource().contains(TOKEN), "the token is not in the page");

    String name = "ui-flame";
    WebElement field = browser.findElement(By.id("jfr-name"));
    field.clear();
    field.sendKeys(name);
    browser.findElement(By.cssSelector("#jfr-scope option[value=cluster]")).click();
    browser.findElement(By.id("jfr-start")).click();
    By row = By.cssSelector("#recordings tr[data-recording='" + name + "']");
    awaitPage("the recording shows running", () -> "running".equals(attribute(row, "data-state")),
        () -> text("jfr-message") + " / " + text("recordings"));
    Await.until("the cluster-wide start reached another node", PAGE_WAIT,
        () -> recordingState(cluster.http(1), name).equals("running"));

    clickWhenPresent(By.cssSelector("#recordings tr[data-recording='" + name + "'] button.stop"));
    awaitPage("the recording shows written", () -> "closed".equals(attribute(row, "data-state")),
        () -> text("jfr-message") + " / " + text("recordings"));
    Await.until("the cluster-wide stop reached another node", PAGE_WAIT,
        () -> !recordingState(cluster.http(1), name).equals("running"));
    assertNoConsoleErrors();

    String dashboard = browser.getWindowHandle();
    clickWhenPresent(By.cssSelector("#recordings tr[data-recording='" + name + "'] a[data-flame=cpu]"));
    Await.until("a flame graph tab opens", PAGE_WAIT, () -> browser.getWindowHandles().size() == 2);
    String flame = browser.getWindowHandles().stream().filter(handle -> !handle.equals(dashboard)).findFirst().orElseThrow();
    browser.switchTo().window(flame);
    try {
      awaitPage("the flame graph is shown", () -> !browser.findElements(By.cssSelector("canvas#canvas")).isEmpty(),
          () -> browser.getCurrentUrl() + ": " + textOf(By.tagName("body")));
      assertTrue(browser.getCurrentUrl().startsWith("blob:" + cluster.url(0) + "/"), browser.getCurrentUrl());
      assertFalse(browser.getCurrentUrl().contains(TOKEN));
      assertTrue(browser.getPageSource().contains("async-profiler"), "the converter's flame graph page");
    } finally {
      browser.close();
      browser.switchTo().window(dashboard);
    }
    stopLoad();
    assertNoConsoleErrors();
  }

  @Test
  @Order(4)
  void killedNodeShowsDownWithinSeconds() throws Exception {
    String victim = cluster.url(2);
    long start = System.nanoTime();
    cluster.kill(2);
    awaitPage("the killed node shows down", () -> "false".equals(attribute(nodeRowBy(victim), "data-alive")),
        () -> "alive on the page: " + aliveShown(), DOWN_SHOWN_WITHIN);
    System.out.printf("dashboard: killed node shown down after %d ms%n", (System.nanoTime() - start) / 1_000_000);
    assertEquals(Set.of(cluster.url(0), cluster.url(1)), aliveShown());
    awaitPage("the summary counts it", () -> text("alive-summary").equals("2 of 3 nodes alive"),
        () -> text("alive-summary"));
    assertNoConsoleErrors();
  }

  /**
   * Issue 53, item 7: once the killed node is removed, the page reads every remaining node's
   * {@code /metrics} again. Before, each of them answered 500 after a node left, and the page said
   * "cannot read this node: /metrics answered 500".
   */
  @Test
  @Order(5)
  void aRemovedNodeLeavesThePageAndEveryNodeReadable() {
    String victim = cluster.url(2);
    HttpResponse<byte[]> removal = cluster.http(0).send("POST", MembershipAdmin.REMOVE + "?url=" + Http.encode(victim),
        HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer " + TOKEN);
    assertEquals(202, removal.statusCode(), Http.text(removal));
    cluster.retire(2);
    awaitPage("the page shows the two nodes left, every endpoint read",
        () -> text("alive-summary").equals("2 of 2 nodes alive") && text("status").startsWith("updated"),
        () -> text("alive-summary") + " / " + text("status"));
    assertEquals(Set.of(cluster.url(0), cluster.url(1)), aliveShown());
    assertNoConsoleErrors();
  }

  @Test
  @Order(6)
  void withoutAnAdminTokenTheAdminButtonsSayWhyTheyAreDisabled(@TempDir Path data) {
    try (TestNode open = TestNode.start(data)) {
      browser.get("http://127.0.0.1:" + open.port() + "/ui/");
      awaitPage("the page says why start is disabled",
          () -> text("admin-reason").contains("no admin token (neither adminToken nor auth tokens"), () -> text("admin-reason"));
      assertFalse(browser.findElement(By.id("jfr-start")).isEnabled());
      assertFalse(browser.findElement(By.id("token-form")).isDisplayed(), "no token asked for");
      assertEquals("no recordings on this node", text("recordings"));
      assertNoConsoleErrors();
    }
  }

  // ---- the page ---------------------------------------------------------------------------

  /** Waits until the shown request count rose {@code times} times in a row, one poll after another. */
  private static void awaitRises(int times) {
    for (int rise = 0; rise < times; rise++) {
      long last = requestTotal();
      awaitPage("the request count rises past " + last, () -> requestTotal() > last,
          () -> "shown: " + requestTotal() + ", load answers: " + loadAnswers.get());
    }
  }

  private static void awaitPage(String what, java.util.function.BooleanSupplier condition, Supplier<String> state) {
    awaitPage(what, condition, state, PAGE_WAIT);
  }

  /** Waits for the page; an element replaced while read (the page redraws every poll) counts as "not yet". */
  private static void awaitPage(String what, java.util.function.BooleanSupplier condition, Supplier<String> state,
                                Duration deadline) {
    Await.until(what, deadline, () -> {
      try {
        return condition.getAsBoolean();
      } catch (WebDriverException | NumberFormatException redrawn) {
        return false;
      }
    }, () -> {
      try {
        return state.get();
      } catch (WebDriverException e) {
        return e.getClass().getSimpleName();
      }
    });
  }

  private static void clickWhenPresent(By target) {
    awaitPage("clicked " + target, () -> {
      browser.findElement(target).click();
      return true;
    }, () -> text("recordings"));
  }

  private static void assertNoConsoleErrors() {
    assertEquals(List.of(), chromium.consoleErrors(), "console errors");
  }

  private static String text(String id) {
    return browser.findElement(By.id(id)).getText();
  }

  private static String textOf(By by) {
    return browser.findElements(by).stream().map(WebElement::getText).findFirst().orElse("(none)");
  }

  private static String attribute(By by, String name) {
    List<WebElement> found = browser.findElements(by);
    return found.isEmpty() ? null : found.get(0).getDomAttribute(name);
  }

  private static By nodeRowBy(String url) {
    return By.cssSelector("#nodes tr[data-url='" + url + "']");
  }

  private static WebElement nodeRow(String url) {
    return browser.findElement(nodeRowBy(url));
  }

  private static Set<String> aliveShown() {
    return Set.copyOf(browser.findElements(By.cssSelector("#nodes tr[data-alive=true]")).stream()
        .map(row -> row.getDomAttribute("data-url")).toList());
  }

  private static long requestTotal() {
    return Long.parseLong(browser.findElement(By.id("request-total")).getDomAttribute("data-value"));
  }

  private static String operationRow(String operation) {
    return textOf(By.cssSelector("#operations tr[data-operation='" + operation + "']"));
  }

  private static String operationCell(String operation, int column) {
    return browser.findElement(By.cssSelector("#operations tr[data-operation='" + operation + "'] td:nth-child("
        + (column + 1) + ")")).getText();
  }

  private static double number(String shown) {
    return Double.parseDouble(shown.replace(",", ""));
  }

  // ---- the nodes --------------------------------------------------------------------------

  /** The recording's state on the node, read over the admin API; "absent" when it has none of that name. */
  private static String recordingState(Http node, String name) {
    HttpResponse<byte[]> response = node.send("GET", "/admin/jfr", HttpRequest.BodyPublishers.noBody(),
        "Authorization", "Bearer " + TOKEN);
    assertEquals(200, response.statusCode(), Http.text(response));
    for (Object entry : new JsonArray(Http.text(response))) {
      JsonObject recording = (JsonObject) entry;
      if (name.equals(recording.getString("name"))) {
        return recording.getString("state");
      }
    }
    return "absent";
  }

  /** Writes and reads through node 0, the node whose page the browser shows. */
  private static void startLoad() {
    loading.set(true);
    for (int t = 0; t < LOAD_THREADS; t++) {
      Random random = new Random(t);
      Thread loader = new Thread(() -> {
        Http node = cluster.http(0);
        long n = 0;
        while (loading.get()) {
          String key = "load-" + random.nextInt(1_000);
          HttpResponse<byte[]> answer = n++ % 3 == 0 ? node.put("/v0/entity?id=" + key, "value-" + n)
              : node.get("/v0/entity?id=" + key);
          if (answer.statusCode() < 500) {
            loadAnswers.incrementAndGet();
          }
        }
      }, "dashboard-load-" + t);
      loader.setDaemon(true);
      loader.start();
      loaders.add(loader);
    }
  }

  private static void stopLoad() throws InterruptedException {
    loading.set(false);
    for (Thread loader : loaders) {
      loader.join(10_000);
    }
    loaders.clear();
  }
}
