package io.quorumkv.web;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.support.Await;
import io.quorumkv.support.Http;
import io.quorumkv.support.NodeProcess;
import io.quorumkv.support.ProcessTier;
import io.quorumkv.support.TestCertificates;
import io.quorumkv.support.TestCluster;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One node on https, black-box: what clients with and without the CA, a client certificate, an
 * expired or a foreign one get, and a certificate replaced under load. Certificates come from the
 * project's own scripts/make-certs.sh; curl is the client where the issue names it.
 */
@ProcessTier
class TlsNodeTest {
  private static final String SECRET = "tls-node-test-secret";
  /** A host the cluster CA issues a certificate for, that no node of the test has. */
  private static final String NO_NODE = "elsewhere.example";

  @TempDir
  Path dir;
  private NodeProcess node;
  private TestCertificates certs;
  private String base;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private void start(JsonObject tlsExtra) throws IOException {
    certs = TestCertificates.make(dir.resolve("certs"));
    List<Integer> ports = TestCluster.freePorts(2);
    base = "https://127.0.0.1:" + ports.get(0);
    JsonObject conf = new JsonObject().put("url", base).put("dataDir", NodeProcess.jsonPath(dir.resolve("data")))
        .put("clusterSecret", SECRET)
        .put("tls", certs.tlsConf("127.0.0.1").put("plainPort", ports.get(1)).put("reloadCheckMs", 300)
            .mergeIn(tlsExtra));
    Path file = NodeProcess.writeConf(dir, "node.json", conf.encodePrettily());
    node = NodeProcess.launchWithConfig(file, dir.resolve("node.log"), null, List.of());
    node.awaitReady(Duration.ofSeconds(60));
  }

  @Test
  void curlWithTheCaGetsThroughAndWithoutItDoesNot() throws Exception {
    start(new JsonObject());
    Curl withCa = curl("-X", "PUT", "--data-binary", "over tls", "--cacert", certs.ca().toString(),
        base + "/v0/entity?id=a");
    assertEquals("201", withCa.status(), withCa.output());
    Curl read = curl("--cacert", certs.ca().toString(), base + "/v0/entity?id=a");
    assertEquals("200", read.status());
    assertTrue(read.output().startsWith("over tls"), read.output());

    Curl withoutCa = curl(base + "/v0/status");
    assertEquals(60, withoutCa.exit(), "curl cannot verify the node's certificate: " + withoutCa.output());
    Curl plainToTls = curl(base.replace("https://", "http://") + "/v0/status");
    assertNotEquals(0, plainToTls.exit(), "plain HTTP on the TLS port gets no answer: " + plainToTls.output());
    Curl oldTls = curl("--tlsv1.1", "--tls-max", "1.1", "--cacert", certs.ca().toString(), base + "/v0/status");
    assertNotEquals(0, oldTls.exit(), "TLS 1.1 is refused: " + oldTls.output());
  }

  @Test
  void internalRequestsNeedACertificateFromTheClusterCa() throws Exception {
    start(new JsonObject());
    Http anonymous = new Http(base, certs.clientWith(null, null));
    HttpResponse<byte[]> refused = anonymous.send("GET", "/internal/v0/record?id=a", HttpRequest.BodyPublishers.noBody(),
        InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(403, refused.statusCode(), Http.text(refused));
    assertEquals("internal request without a cluster certificate", Http.text(refused).strip());
    assertEquals(201, anonymous.put("/v0/entity?id=a", "client").statusCode(), "the API needs no certificate");

    Http peer = new Http(base, certs.client());
    HttpResponse<byte[]> admitted = peer.send("GET", "/internal/v0/record?id=a", HttpRequest.BodyPublishers.noBody(),
        InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(200, admitted.statusCode(), Http.text(admitted));
    HttpResponse<byte[]> withoutSecret = peer.get("/internal/v0/record?id=a");
    assertEquals(403, withoutSecret.statusCode(), "the cluster secret stays a second factor");

    String plainBase = "http://127.0.0.1:" + new JsonObject(Files.readString(dir.resolve("node.json")))
        .getJsonObject("tls").getInteger("plainPort");
    Http plain = new Http(plainBase);
    assertEquals("client", Http.text(plain.get("/v0/entity?id=a")), "tls.plainPort serves the API");
    assertEquals(403, plain.send("GET", "/internal/v0/record?id=a", HttpRequest.BodyPublishers.noBody(),
        InternalEndpoint.SECRET_HEADER, SECRET).statusCode(), "but no internal request");

    TestCertificates foreign = TestCertificates.make(dir.resolve("foreign"));
    HttpClient foreignNode = certs.clientWith(foreign.node("127.0.0.1"), foreign.nodeKey("127.0.0.1"));
    // Under TLS 1.3 the client may learn of the refusal only after its side of the handshake, as
    // an alert or as a connection closed before any answer: either way an IOException, no answer.
    assertThrows(IOException.class, () -> foreignNode.send(HttpRequest.newBuilder(
        URI.create(base + "/internal/v0/record?id=a")).header(InternalEndpoint.SECRET_HEADER, SECRET).build(),
        HttpResponse.BodyHandlers.ofString()), "a certificate from another CA fails the handshake");
    assertThrows(IOException.class, () -> foreignNode.send(HttpRequest.newBuilder(
        URI.create(base + "/v0/entity?id=foreign")).PUT(HttpRequest.BodyPublishers.ofString("x")).build(),
        HttpResponse.BodyHandlers.ofString()), "not even the API takes a request over it");
    assertEquals(404, anonymous.get("/v0/entity?id=foreign").statusCode(), "nothing of it was read or stored");
  }

  @Test
  void anExpiredCertificateIsRefusedOnBothSides() throws Exception {
    start(new JsonObject());
    // A certificate of the cluster CA valid for one day, three days ago.
    certs.run(Map.of("DAYS", "1", "FAKETIME", "-3d", "LD_PRELOAD", faketimeLibrary()), "localhost");
    X509Certificate expired = (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
        .generateCertificate(Files.newInputStream(certs.node("localhost")));
    assertTrue(expired.getNotAfter().getTime() < System.currentTimeMillis(), "the certificate has expired");

    HttpClient expiredPeer = certs.clientWith(certs.node("localhost"), certs.nodeKey("localhost"));
    assertThrows(IOException.class, () -> expiredPeer.send(HttpRequest.newBuilder(
        URI.create(base + "/internal/v0/record?id=a")).header(InternalEndpoint.SECRET_HEADER, SECRET).build(),
        HttpResponse.BodyHandlers.ofString()), "an expired client certificate fails the handshake");

    replaceCertificate("localhost");
    Curl toExpired = curl("--cacert", certs.ca().toString(), "--resolve", "localhost:" + URI.create(base).getPort()
        + ":127.0.0.1", base.replace("127.0.0.1", "localhost") + "/v0/status");
    assertNotEquals(0, toExpired.exit(), "a node serving an expired certificate is refused: " + toExpired.output());
    assertTrue(toExpired.output().contains("expired"), toExpired.output());
  }

  @Test
  void clientCertificatesAreRequiredWhenTheConfNamesTheirCa() throws Exception {
    Path clientsCa = dir.resolve("certs").resolve("clients-ca.pem");
    start(new JsonObject().put("clientCaFile", clientsCa.toString()));
    assertThrows(IOException.class, () -> certs.clientWith(null, null).send(HttpRequest.newBuilder(
        URI.create(base + "/v0/status")).build(), HttpResponse.BodyHandlers.discarding()),
        "no client certificate, no connection");
    Path dirOfCerts = dir.resolve("certs");
    Http client = new Http(base, certs.clientWith(dirOfCerts.resolve("client.pem"), dirOfCerts.resolve("client-key.pem")));
    assertEquals(201, client.put("/v0/entity?id=b", "with a client certificate").statusCode());
    HttpResponse<byte[]> internal = client.send("GET", "/internal/v0/record?id=b", HttpRequest.BodyPublishers.noBody(),
        InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(403, internal.statusCode(), "a client's certificate is not a node's");
    HttpResponse<byte[]> peer = new Http(base, certs.client()).send("GET", "/internal/v0/record?id=b",
        HttpRequest.BodyPublishers.noBody(), InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(200, peer.statusCode(), "a node's certificate still is");
  }

  /**
   * A client holds the cluster CA's certificate (to trust the nodes), and curl sends whatever chain
   * its certificate file holds. Only the leaf, the certificate whose key the client proved it holds,
   * may make it a node: a client certificate followed by the cluster CA's, or by a node's, and a
   * node certificate of another cluster's CA followed by this cluster's CA, and a certificate of
   * this cluster's CA that names a host no node has, reach no internal endpoint, even with the
   * cluster secret. Before, the first two got past the certificate check, since any certificate of
   * the chain signed by the cluster CA counted, and so did the last, since any leaf of it did.
   */
  @Test
  void aClientChainCarryingTheClusterCaOrANodeCertificateReachesNoInternalEndpoint() throws Exception {
    Path dirOfCerts = dir.resolve("certs");
    start(new JsonObject().put("clientCaFile", dirOfCerts.resolve("clients-ca.pem").toString()));
    TestCertificates foreign = TestCertificates.make(dir.resolve("foreign-certs"));
    certs.run(Map.of(), NO_NODE);
    Path client = dirOfCerts.resolve("client.pem");
    Path clientKey = dirOfCerts.resolve("client-key.pem");
    Map<String, List<Path>> chains = Map.of(
        "client certificate + cluster CA", List.of(client, certs.ca(), clientKey),
        "client certificate + node certificate", List.of(client, certs.node("127.0.0.1"), clientKey),
        "foreign node certificate + cluster CA", List.of(foreign.node("127.0.0.1"), certs.ca(),
            foreign.nodeKey("127.0.0.1")),
        "cluster CA certificate naming no node + cluster CA", List.of(certs.node(NO_NODE), certs.ca(),
            certs.nodeKey(NO_NODE)));
    List<String> passed = new ArrayList<>();
    for (Map.Entry<String, List<Path>> chain : chains.entrySet()) {
      Path file = dir.resolve(chain.getKey().replace(' ', '-').replace("+", "and") + ".pem");
      Files.writeString(file, Files.readString(chain.getValue().get(0)) + Files.readString(chain.getValue().get(1)));
      for (InternalEndpoint endpoint : InternalEndpoint.values()) {
        Curl answer = curl("-X", endpoint.method().name(), "--cacert", certs.ca().toString(), "--cert", file.toString(),
            "--key", chain.getValue().get(2).toString(), "-H", InternalEndpoint.SECRET_HEADER + ": " + SECRET,
            base + endpoint.path() + "?id=chained");
        boolean refused = answer.exit() != 0 || (answer.status().equals("403")
            && answer.output().contains("without a cluster certificate"));
        if (!refused) {
          passed.add(chain.getKey() + ": " + endpoint.method() + " " + endpoint.path() + " answered " + answer.status());
        }
      }
    }
    assertEquals(List.of(), passed, "internal requests that a chain got past the certificate check");
    HttpResponse<byte[]> peer = new Http(base, certs.client()).send("GET", "/internal/v0/record?id=chained",
        HttpRequest.BodyPublishers.noBody(), InternalEndpoint.SECRET_HEADER, SECRET);
    assertEquals(404, peer.statusCode(), "a node's own certificate still reaches the endpoint");
  }

  /**
   * Eight clients write and read without pause, half of them on a new connection for every request,
   * while the node's certificate is replaced three times (twice seen by the file check, once by
   * {@code SIGHUP}): no request fails, and new connections get the new certificate.
   */
  @Test
  void aCertificateReplacedUnderLoadDropsNoRequest() throws Exception {
    start(new JsonObject().put("reloadCheckMs", 300));
    BigInteger first = servedSerial();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong made = new AtomicLong();
    ExecutorService clients = Executors.newFixedThreadPool(8);
    List<Future<long[]>> tallies = new ArrayList<>();
    for (int c = 0; c < 8; c++) {
      int client = c;
      tallies.add(clients.submit(() -> load(client, running, made)));
    }
    List<BigInteger> serials = new ArrayList<>(List.of(first));
    for (int round = 0; round < 3; round++) {
      long before = made.get();
      Await.until("the clients made 50 more requests on this certificate", Duration.ofSeconds(30),
          () -> made.get() >= before + 50);
      Files.delete(certs.node("127.0.0.1"));
      certs.run(Map.of(), "127.0.0.1");
      if (round == 2) {
        new ProcessBuilder("kill", "-HUP", Long.toString(node.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
      }
      BigInteger previous = serials.get(serials.size() - 1);
      Await.until("a new connection gets the new certificate", Duration.ofSeconds(20),
          () -> !servedSerial().equals(previous));
      serials.add(servedSerial());
    }
    running.set(false);
    long requests = 0;
    for (Future<long[]> tally : tallies) {
      long[] counts = tally.get(60, TimeUnit.SECONDS);
      assertEquals(0, counts[1], "requests that failed across the reloads");
      requests += counts[0];
    }
    clients.shutdown();
    assertTrue(requests > 100, "the clients kept the node busy: " + requests + " requests");
    assertEquals(4, serials.stream().distinct().count(), "three new certificates served: " + serials);
    assertTrue(node.isAlive(), "SIGHUP reloads, it does not stop the node");
    System.out.printf("TlsNodeTest: %d requests during 3 certificate reloads, none failed%n", requests);
  }

  /** {requests, failures} of one client until {@code running} turns false; every request counted in {@code made}. */
  private long[] load(int client, AtomicBoolean running, AtomicLong made) {
    boolean freshConnections = client % 2 == 0;
    HttpClient shared = certs.clientWith(null, null);
    long requests = 0;
    long failures = 0;
    while (running.get()) {
      HttpClient http = freshConnections ? certs.clientWith(null, null) : shared;
      String key = "load-" + client + "-" + requests;
      try {
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + key))
            .PUT(HttpRequest.BodyPublishers.ofString(key)).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + key)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() != 201 || get.statusCode() != 200 || !key.equals(get.body())) {
          failures++;
        }
      } catch (IOException e) {
        failures++;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      requests += 2;
      made.addAndGet(2);
    }
    return new long[] {requests, failures};
  }

  /** The serial number of the certificate a new connection gets. */
  private BigInteger servedSerial() {
    try {
      HttpResponse<Void> answer = certs.clientWith(null, null).send(HttpRequest.newBuilder(
          URI.create(base + "/v0/status")).build(), HttpResponse.BodyHandlers.discarding());
      SSLSession session = answer.sslSession().orElseThrow();
      return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    } catch (IOException e) {
      throw new AssertionError("GET /v0/status over TLS failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Puts {@code host}'s certificate where the node reads its own (a rename, as an operator should) and waits for the reload. */
  private void replaceCertificate(String host) throws Exception {
    Path cert = certs.node("127.0.0.1");
    Path key = certs.nodeKey("127.0.0.1");
    Files.copy(certs.nodeKey(host), dir.resolve("key.tmp"));
    Files.copy(certs.node(host), dir.resolve("cert.tmp"));
    Files.move(dir.resolve("key.tmp"), key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Files.move(dir.resolve("cert.tmp"), cert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Await.until("the node logs the reload", Duration.ofSeconds(20),
        () -> node.log().contains("TLS certificate reloaded"));
  }

  private static String faketimeLibrary() {
    for (String candidate : List.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1")) {
      if (Files.exists(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new AssertionError("libfaketime is not installed (.ci/run installs the faketime package)");
  }

  private record Curl(int exit, String status, String output) {
  }

  /** Runs curl with the arguments, writing the status code last. */
  private static Curl curl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10", "-w", "\n%{http_code}"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), "curl finished");
    String[] lines = output.strip().split("\n");
    return new Curl(process.exitValue(), lines[lines.length - 1], output);
  }
}
