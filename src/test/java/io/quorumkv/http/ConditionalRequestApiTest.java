package io.quorumkv.http;

import io.quorumkv.support.Http;
import io.quorumkv.support.ManualClock;
import io.quorumkv.support.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static io.quorumkv.support.Http.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ETags and conditional requests on {@code /v0/entity} (docs/api.md "Versions and conditional requests"), one node. */
class ConditionalRequestApiTest {
  private static final AtomicInteger KEYS = new AtomicInteger();

  @TempDir
  static Path dataDir;
  static ManualClock clock;
  static TestNode node;
  static Http http;

  @BeforeAll
  static void startNode() {
    clock = ManualClock.startingNow();
    node = TestNode.start(TestNode.config(dataDir, new JsonObject()), clock);
    http = node.http;
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  private static String freshKey() {
    return "/v0/entity?id=conditional-" + KEYS.incrementAndGet();
  }

  private static HttpResponse<byte[]> put(String path, String value, String... headers) {
    return http.send("PUT", path, BodyPublishers.ofString(value), headers);
  }

  private static HttpResponse<byte[]> delete(String path, String... headers) {
    return http.send("DELETE", path, BodyPublishers.noBody(), headers);
  }

  private static HttpResponse<byte[]> get(String path, String... headers) {
    return http.send("GET", path, BodyPublishers.noBody(), headers);
  }

  private static String etagOf(HttpResponse<byte[]> response) {
    return response.headers().firstValue("ETag").orElseThrow(() -> new AssertionError("no ETag on " + response));
  }

  private static void assertTagMatchesVersion(HttpResponse<byte[]> response) {
    String version = response.headers().firstValue("X-QKV-Version").orElseThrow();
    assertEquals("\"" + version + "\"", etagOf(response), "ETag is the version in double quotes");
  }

  @Test
  void everySuccessfulAnswerCarriesTheVersionAsETag() {
    String path = freshKey();
    HttpResponse<byte[]> written = put(path, "v");
    assertEquals(201, written.statusCode());
    assertTagMatchesVersion(written);
    HttpResponse<byte[]> read = get(path);
    assertEquals(200, read.statusCode());
    assertTagMatchesVersion(read);
    assertEquals(etagOf(written), etagOf(read));
    HttpResponse<byte[]> deleted = delete(path);
    assertEquals(202, deleted.statusCode());
    assertTagMatchesVersion(deleted);
  }

  @Test
  void getWithIfNoneMatchAnswers304OnlyForTheCurrentVersion() {
    String path = freshKey();
    String first = etagOf(put(path, "one"));
    HttpResponse<byte[]> unchanged = get(path, "If-None-Match", first);
    assertEquals(304, unchanged.statusCode());
    assertEquals(0, unchanged.body().length);
    assertEquals(first, etagOf(unchanged));
    assertEquals(304, get(path, "If-None-Match", "\"1\", " + first).statusCode(), "a list naming it");
    assertEquals(304, get(path, "If-None-Match", "*").statusCode());

    String second = etagOf(put(path, "two"));
    HttpResponse<byte[]> changed = get(path, "If-None-Match", first);
    assertEquals(200, changed.statusCode());
    assertEquals("two", text(changed));
    assertEquals(second, etagOf(changed));

    delete(path);
    assertEquals(404, get(path, "If-None-Match", second).statusCode());
    assertEquals(404, get(path, "If-None-Match", "*").statusCode());
  }

  @Test
  void putIfMatchWritesOnlyOverTheVersionItNames() {
    String path = freshKey();
    String first = etagOf(put(path, "one"));
    HttpResponse<byte[]> swapped = put(path, "two", "If-Match", first);
    assertEquals(201, swapped.statusCode());
    assertTrue(versionOf(swapped) > Long.parseLong(first.replace("\"", "")), "the new version is above the one read");

    HttpResponse<byte[]> stale = put(path, "three", "If-Match", first);
    assertEquals(412, stale.statusCode());
    assertEquals(etagOf(swapped), etagOf(stale), "a 412 names the current version");
    assertEquals(String.valueOf(versionOf(swapped)), stale.headers().firstValue("X-QKV-Version").orElseThrow());
    assertTrue(text(stale).startsWith("precondition failed"), text(stale));
    assertEquals("two", text(get(path)), "a 412 stores nothing");
  }

  @Test
  void ifMatchOnAnAbsentOrDeletedKeyFailsWithoutAVersion() {
    String path = freshKey();
    HttpResponse<byte[]> absent = put(path, "v", "If-Match", "\"42\"");
    assertEquals(412, absent.statusCode());
    assertFalse(absent.headers().firstValue("X-QKV-Version").isPresent());
    assertFalse(absent.headers().firstValue("ETag").isPresent());
    assertEquals(412, put(path, "v", "If-Match", "*").statusCode(), "If-Match: * needs a live record");
    assertEquals(404, get(path).statusCode(), "nothing was stored");

    String written = etagOf(put(path, "v"));
    assertEquals(201, put(path, "w", "If-Match", "*").statusCode());
    HttpResponse<byte[]> deleted = delete(path, "If-Match", written);
    assertEquals(412, deleted.statusCode(), "the version named is no longer the current one");
    assertEquals(202, delete(path, "If-Match", etagOf(get(path))).statusCode());
    assertEquals(412, delete(path, "If-Match", "*").statusCode(), "a tombstone is absent");
  }

  @Test
  void putIfNoneMatchStarCreatesOnlyAbsentKeys() {
    String path = freshKey();
    assertEquals(201, put(path, "first", "If-None-Match", "*").statusCode());
    HttpResponse<byte[]> taken = put(path, "second", "If-None-Match", "*");
    assertEquals(412, taken.statusCode());
    assertEquals(etagOf(get(path)), etagOf(taken));
    assertEquals("first", text(get(path)));

    delete(path);
    assertEquals(201, put(path, "again", "If-None-Match", "*").statusCode(), "a deleted key is absent");
  }

  @Test
  void anExpiredRecordCountsAsAbsent() {
    String path = freshKey();
    String tag = etagOf(put(path + "&ttl=1000", "short-lived"));
    clock.advance(2000);
    assertEquals(412, put(path, "v", "If-Match", tag).statusCode());
    assertEquals(201, put(path, "v", "If-None-Match", "*").statusCode());
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      "PUT    | If-Match      | abc",
      "PUT    | If-Match      | 5",
      "PUT    | If-Match      | '\"1\", \"2\"'",
      "PUT    | If-Match      | 'W/\"1\"'",
      "PUT    | If-Match      | '\"99999999999999999999\"'",
      "PUT    | If-None-Match | '\"1\"'",
      "DELETE | If-None-Match | *",
      "DELETE | If-Match      | '\"\"'",
      "GET    | If-Match      | '\"1\"'",
      "GET    | If-None-Match | abc"})
  void badConditionalHeadersAre400WithAShortMessage(String method, String header, String value) {
    String path = freshKey();
    put(path, "kept");
    HttpResponse<byte[]> answer = http.send(method, path, BodyPublishers.ofString("changed"), header, value);
    assertEquals(400, answer.statusCode(), text(answer));
    assertTrue(text(answer).contains(header), "the message names the header: " + text(answer));
    assertEquals(1, text(answer).strip().lines().count(), text(answer));
    assertEquals("kept", text(get(path)));
  }

  @Test
  void ifMatchWithIfNoneMatchIs400() {
    String path = freshKey();
    HttpResponse<byte[]> answer = put(path, "v", "If-Match", "\"1\"", "If-None-Match", "*");
    assertEquals(400, answer.statusCode());
    assertTrue(text(answer).contains("cannot be combined"), text(answer));
    assertEquals(404, get(path).statusCode());
  }

  private static long versionOf(HttpResponse<byte[]> response) {
    return Long.parseLong(response.headers().firstValue("X-QKV-Version").orElseThrow());
  }
}
