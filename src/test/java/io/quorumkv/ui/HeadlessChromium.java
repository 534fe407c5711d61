package io.quorumkv.ui;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

/**
 * Debian's {@code chromium}, headless, driven through its {@code chromium-driver} by Selenium.
 * Both paths are fixed (overridable with {@code -Dquorumkv.chromium} and
 * {@code -Dquorumkv.chromedriver}), so Selenium never looks for, or downloads, a browser of its own.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final Path CHROMIUM = Path.of(System.getProperty("quorumkv.chromium", "/usr/bin/chromium"));
  private static final Path CHROMEDRIVER = Path.of(System.getProperty("quorumkv.chromedriver", "/usr/bin/chromedriver"));

  final ChromeDriver driver;

  private HeadlessChromium(ChromeDriver driver) {
    this.driver = driver;
  }

  /** Starts the browser with a window of that size; fails (never skips) when it is not installed. */
  static HeadlessChromium start(int width, int height) {
    for (Path binary : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(binary)) {
        throw new AssertionError(binary + " is missing: the dashboard test needs a real browser. Install it with "
            + "'apt-get install chromium chromium-driver' (.ci/run does), or point -Dquorumkv.chromium and "
            + "-Dquorumkv.chromedriver at another build of both");
      }
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--window-size=" + width + "," + height, "--hide-scrollbars", "--no-first-run", "--disable-extensions");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
    return new HeadlessChromium(driver);
  }

  /** Console messages at error level since the last call (JavaScript errors, failed loads, CSP refusals). */
  List<String> consoleErrors() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
        .map(LogEntry::toString)
        .toList();
  }

  void screenshot(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
  }

  @Override
  public void close() {
    driver.quit();
  }
}
