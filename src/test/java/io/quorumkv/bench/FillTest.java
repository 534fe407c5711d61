package io.quorumkv.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.support.TestCertificates;
import io.quorumkv.support.TestNode;
import io.quorumkv.web.NodeAccess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The filler tries a write again after a 503, 504 or timeout, counting it, and stops with the
 * key and the answer once a write fails for good or is refused for another reason.
 */
class FillTest {
  private final Vertx vertx = Vertx.vertx();
  private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  private final Map<String, Integer> stored = new ConcurrentHashMap<>();
  /** The status to answer, given the key and which attempt at it this is (1 for the first). */
  private volatile BiFunction<String, Integer, Integer> answer = (key, attempt) -> 201;
  private URI url;

  @BeforeEach
  void startServer() throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(this::handle).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    url = URI.create("http://127.0.0.1:" + server.actualPort());
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void handle(HttpServerRequest request) {
    String key = request.getParam("id");
    request.body().onSuccess(body -> {
      int attempt = attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      int status = answer.apply(key, attempt);
      if (status == 201) {
        stored.merge(key, 1, Integer::sum);
      }
      request.response().setStatusCode(status).end();
    });
  }

  @Test
  void writesAnsweredWith503Or504AreTriedAgainUntilStoredAndCounted() throws Exception {
    answer = (key, attempt) -> {
      int number = Integer.parseInt(key.substring(1));
      if (number % 3 == 0 && attempt == 1) {
        return 504;
      }
      return number % 5 == 0 && attempt <= 2 ? 503 : 201;
    };
    Fill.Result result = Fill.run(url, 300, 10, 8, "", "k");

    assertEquals(300, result.keys());
    assertEquals(300, stored.size(), "keys stored");
    assertTrue(stored.values().stream().allMatch(times -> times == 1), "each key stored once");
    long expectedRetries = attempts.values().stream().mapToInt(AtomicInteger::get).map(n -> n - 1).sum();
    // 80 keys of 3 but not 5 once, 40 of 5 but not 3 twice, 20 of 15 twice (a 504, then a 503).
    assertEquals(80 + 40 * 2 + 20 * 2, expectedRetries, "attempts beyond the first, as the server saw them");
    assertEquals(expectedRetries, result.retries());
  }

  @Test
  void aWriteThatKeepsFailingStopsTheFillAfterItsLastAttempt() {
    answer = (key, attempt) -> key.equals("k7") ? 504 : 201;
    ExecutionException failure = assertThrows(ExecutionException.class, () -> Fill.run(url, 20, 10, 2, "", "k"));

    assertEquals("PUT k7 answered 504 not enough replicas, or a gateway timeout (attempt " + Fill.ATTEMPTS + ")",
        failure.getCause().getMessage());
    assertEquals(Fill.ATTEMPTS, attempts.get("k7").get(), "attempts at k7");
  }

  @Test
  void aRefusalIsNotTriedAgain() {
    answer = (key, attempt) -> key.equals("k3") ? 400 : 201;
    ExecutionException failure = assertThrows(ExecutionException.class, () -> Fill.run(url, 10, 10, 1, "", "k"));

    assertEquals("PUT k3 answered 400 bad request", failure.getCause().getMessage());
    assertEquals(1, attempts.get("k3").get(), "attempts at k3");
  }

  /** Bench's options reach a node over TLS with a token: without the token the fill stops at the 401 it got. */
  @Test
  void fillsATlsNodeWithATokenAndSaysWhyWithoutOne(@TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.make(dir.resolve("certs"));
    NodeConfig config = TestNode.config(dir.resolve("data"), new JsonObject().put("url", "https://127.0.0.1:0")
        .put("tls", certs.tlsConf("127.0.0.1")).put("auth", new JsonObject().put("tokens", new JsonArray()
            .add(new JsonObject().put("name", "loader").put("role", "write").put("token", "fill-secret")))));
    try (TestNode node = TestNode.start(config, InstantSource.system())) {
      URI tls = URI.create("https://127.0.0.1:" + node.port());
      NodeAccess access = NodeAccess.NONE.with("--cacert", certs.ca().toString()).with("--token", "fill-secret");
      assertEquals(50, Fill.run(tls, 50, 10, 4, "", "t", access).keys());
      ExecutionException refused = assertThrows(ExecutionException.class,
          () -> Fill.run(tls, 5, 10, 1, "", "t", NodeAccess.NONE.with("--cacert", certs.ca().toString())));
      assertEquals("PUT t0 answered 401 token of role write required (Authorization: Bearer TOKEN)",
          refused.getCause().getMessage());
    }
  }
}
