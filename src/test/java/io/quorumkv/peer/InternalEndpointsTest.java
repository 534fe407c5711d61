package io.quorumkv.peer;

import io.quorumkv.support.Http;
import io.quorumkv.support.TestNode;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Every endpoint of the table is served, as the table says, by a real node: behind the cluster
 * secret, on its method, and with a 405 naming exactly the table's methods for its path; a
 * handler class mounted each, and docs/api.md lists the same table with those classes.
 */
class InternalEndpointsTest {
  private static final String SECRET = "table-secret";
  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("clusterSecret", SECRET)),
        InstantSource.system());
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void apiMdListsEveryEndpointAsTheTableSays() throws IOException {
    Pattern row = Pattern.compile("^\\| `([A-Z_]+)` \\| `(\\w+)` \\| `([^`]+)` \\| ([^|]+) \\| `([^`]+)` \\|$");
    List<String> documented = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("docs/api.md"))) {
      Matcher matched = row.matcher(line);
      if (matched.matches()) {
        documented.add(String.join(" ", matched.group(1), matched.group(2), matched.group(3), matched.group(4).trim(),
            matched.group(5)));
      }
    }
    List<String> table = Arrays.stream(InternalEndpoint.values()).map(endpoint -> String.join(" ", endpoint.name(),
        endpoint.method().name(), endpoint.path(), endpoint.timeout().description(), answeredBy(endpoint))).toList();
    assertEquals(table, documented);
  }

  @ParameterizedTest
  @EnumSource(InternalEndpoint.class)
  void aHandlerOfTheEndpointsFeatureMountedIt(InternalEndpoint endpoint) {
    Class<?> handler = PeerRoutes.answeredBy(endpoint).orElseThrow(() -> new AssertionError(endpoint + " is not mounted"));
    assertNotEquals(InternalEndpoint.class.getPackageName(), handler.getPackageName(), endpoint + ": " + handler);
  }

  @ParameterizedTest
  @EnumSource(InternalEndpoint.class)
  void withoutTheSecretEveryEndpointIs403(InternalEndpoint endpoint) {
    HttpResponse<byte[]> answer = node.http.send(endpoint.method().name(), endpoint.path(),
        HttpRequest.BodyPublishers.noBody());
    assertEquals(403, answer.statusCode(), endpoint + ": " + Http.text(answer));
    assertEquals("internal request without the cluster secret\n", Http.text(answer));
  }

  @ParameterizedTest
  @EnumSource(InternalEndpoint.class)
  void anotherMethodOnItsPathIs405NamingTheTablesMethods(InternalEndpoint endpoint) {
    Set<String> methods = Arrays.stream(InternalEndpoint.values()).filter(other -> other.path().equals(endpoint.path()))
        .map(other -> other.method().name()).collect(Collectors.toCollection(TreeSet::new));
    String other = methods.contains(HttpMethod.PATCH.name()) ? HttpMethod.OPTIONS.name() : HttpMethod.PATCH.name();
    HttpResponse<byte[]> answer = node.http.send(other, endpoint.path(), HttpRequest.BodyPublishers.noBody(),
        InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(405, answer.statusCode(), endpoint + ": " + Http.text(answer));
    Set<String> allowed = Arrays.stream(answer.headers().firstValue("Allow").orElse("").split(", "))
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(methods, allowed, endpoint + "'s Allow header");
  }

  /** The class that mounted the endpoint, as api.md names it: {@code package.Class} under {@code io.quorumkv}. */
  private static String answeredBy(InternalEndpoint endpoint) {
    return PeerRoutes.answeredBy(endpoint).map(handler -> handler.getName().substring("io.quorumkv.".length()))
        .orElse("(not mounted)");
  }
}
