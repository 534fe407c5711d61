package io.quorumkv.web;

import io.quorumkv.support.TestCertificates;
import io.quorumkv.support.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a tool says when a request to a real node fails: a plain node, a TLS node and one that wants
 * client certificates, reached with the wrong scheme, without the CA, without a certificate, or not
 * at all; through the JDK's client (restore, the admin command) and Vert.x's (bench, Fill).
 */
class ClientFailuresTest {
  @TempDir
  static Path dir;
  private static TestCertificates certs;
  private static TestNode plain;
  private static TestNode tls;
  private static TestNode clientCertificates;
  private static Vertx vertx;

  @BeforeAll
  static void start() throws IOException {
    certs = TestCertificates.make(dir.resolve("certs"));
    plain = TestNode.start(dir.resolve("plain"));
    tls = TestNode.start(TestNode.config(dir.resolve("tls"), new JsonObject().put("url", "https://127.0.0.1:0")
        .put("tls", certs.tlsConf("127.0.0.1"))), java.time.InstantSource.system());
    clientCertificates = TestNode.start(TestNode.config(dir.resolve("mtls"), new JsonObject()
        .put("url", "https://127.0.0.1:0").put("tls", certs.tlsConf("127.0.0.1")
            .put("clientCaFile", certs.dir().resolve("clients-ca.pem").toString()))), java.time.InstantSource.system());
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    for (TestNode node : new TestNode[] {plain, tls, clientCertificates}) {
      if (node != null) {
        node.close();
      }
    }
    if (vertx != null) {
      vertx.close();
    }
  }

  @Test
  void anHttpUrlToATlsNodeSaysUseHttps() {
    URI url = URI.create("http://127.0.0.1:" + tls.port());
    String expected = "the node at " + url + " speaks TLS: use https://127.0.0.1:" + tls.port();
    assertEquals(expected, ClientFailures.describe(url, jdkFailure(url, null)));
    assertEquals(expected, ClientFailures.describe(url, vertxFailure(url, ClientTls.NONE)));
  }

  @Test
  void aServerThatOnlyClosesIsNotTakenForATlsNode() throws Exception {
    try (ServerSocket closing = new ServerSocket(0)) {
      Thread closer = new Thread(() -> {
        while (!closing.isClosed()) {
          try (Socket accepted = closing.accept()) {
            accepted.getInputStream().read();
          } catch (IOException stopped) {
            return;
          }
        }
      });
      closer.setDaemon(true);
      closer.start();
      URI url = URI.create("http://127.0.0.1:" + closing.getLocalPort());
      String said = ClientFailures.describe(url, jdkFailure(url, null));
      assertEquals("the connection to " + url + " closed before an answer", said);
    }
  }

  @Test
  void anHttpsUrlToAPlainNodeSaysUseHttp() {
    URI url = URI.create("https://127.0.0.1:" + plain.port());
    String expected = "the node at " + url + " does not speak TLS: use http://127.0.0.1:" + plain.port();
    assertEquals(expected, ClientFailures.describe(url, jdkFailure(url, certs.ca())));
    Throwable vertxFailure = vertxFailure(url, new ClientTls(certs.ca(), null, null));
    assertEquals(expected, ClientFailures.describe(url, vertxFailure));
    assertTrue(ClientFailures.kindOf(vertxFailure).isTls());
  }

  @Test
  void aCertificateFromAnUntrustedCaIsNamed() {
    URI url = URI.create("https://127.0.0.1:" + tls.port());
    String said = ClientFailures.describe(url, jdkFailure(url, certs.dir().resolve("clients-ca.pem")));
    assertTrue(said.startsWith("the certificate of " + url + " is not trusted: "), said);
    assertTrue(said.contains("CN=quorumkv node 127.0.0.1, issued by CN=quorumkv cluster CA") && said.endsWith("no trusted CA issued it (give its CA with --cacert)"),
        said);
    assertEquals(said, ClientFailures.describe(url, vertxFailure(url, new ClientTls(certs.dir()
        .resolve("clients-ca.pem"), null, null))));
  }

  @Test
  void aMissingClientCertificateIsSaid() {
    URI url = URI.create("https://127.0.0.1:" + clientCertificates.port());
    assertEquals("the node at " + url + " refused this client's certificate (or its absence): give one its clients'"
        + " CA issued with --cert and --key", ClientFailures.describe(url, jdkFailure(url, certs.ca())));
    // Under TLS 1.3 the node's alert may come after the client's side of the handshake ended: a plain close.
    assertEquals("the node at " + url + " refused this client's certificate (or its absence): give one its clients'"
        + " CA issued with --cert and --key", ClientFailures.describe(url, new java.io.IOException(
        "HTTP/1.1 header parser received no bytes")));
  }

  @Test
  void noNodeIsAConnectionRefused() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port);
    assertEquals("no node at " + url + " (connection refused)", ClientFailures.describe(url, jdkFailure(url, null)));
    assertEquals("no node at " + url + " (connection refused)",
        ClientFailures.describe(url, vertxFailure(url, ClientTls.NONE)));
    assertFalse(ClientFailures.kindOf(jdkFailure(url, null)).isTls());
  }

  @Test
  void answersSayTheStatusAndTheNodesShortText() {
    assertEquals("401 unknown token", ClientFailures.answer(401, "unknown token\n"));
    assertEquals("403 the token's role is too weak", ClientFailures.answer(403, "<html><body>no</body></html>"));
    assertEquals("504 2 acks required, 1 received", ClientFailures.answer(504, "2 acks required, 1 received\nmore"));
  }

  /** The failure of a GET /v0/status with the JDK's client, trusting {@code ca} (null: the JDK's CAs). */
  private static Throwable jdkFailure(URI url, Path ca) {
    try {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .sslContext(new ClientTls(ca, null, null).sslContext()).build();
      HttpResponse<String> answer = client.send(HttpRequest.newBuilder(url.resolve("/v0/status"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      return fail("answered " + answer.statusCode());
    } catch (IOException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The same with Vert.x's client, as bench and Fill send. */
  private static Throwable vertxFailure(URI url, ClientTls clientTls) {
    HttpClientOptions options = new HttpClientOptions().setDefaultHost(url.getHost()).setDefaultPort(url.getPort())
        .setConnectTimeout(5_000);
    if ("https".equals(url.getScheme())) {
      clientTls.secure(options);
    }
    io.vertx.core.http.HttpClient client = vertx.createHttpClient(options);
    try {
      int status = client.request(new RequestOptions().setURI("/v0/status").setTimeout(10_000))
          .compose(request -> request.send()).map(response -> response.statusCode())
          .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      return fail("answered " + status);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      client.close();
    }
  }
}
