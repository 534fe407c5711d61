package io.quorumkv.support;

import io.quorumkv.web.PemSslContext;
import io.vertx.core.json.JsonObject;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for a test's TLS nodes, made by the project's own {@code scripts/make-certs.sh} into
 * a directory of the test's: the cluster CA, a certificate per node host, the clients' CA and a
 * client certificate; and JDK HTTP clients that trust them.
 */
public final class TestCertificates {
  private static final Path SCRIPT = Path.of("scripts", "make-certs.sh");
  private final Path dir;
  private HttpClient client;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** Makes the CAs and 127.0.0.1's node certificate in {@code dir}. */
  public static TestCertificates make(Path dir) throws IOException {
    TestCertificates certificates = new TestCertificates(dir);
    certificates.run(Map.of(), "127.0.0.1");
    return certificates;
  }

  /**
   * Runs the script for these hosts: it keeps the CAs already made, so every node certificate comes
   * from one cluster CA; {@code environment} such as {@code DAYS}.
   */
  public void run(Map<String, String> environment, String... hosts) throws IOException {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toAbsolutePath().toString(), dir.toString()));
    command.addAll(List.of(hosts));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new AssertionError("make-certs.sh failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  public Path dir() {
    return dir;
  }

  public Path ca() {
    return dir.resolve("ca.pem");
  }

  public Path node(String host) {
    return dir.resolve("node-" + host + ".pem");
  }

  public Path nodeKey(String host) {
    return dir.resolve("node-" + host + "-key.pem");
  }

  /** The conf's {@code tls} section for a node on {@code host}, making its certificate if need be. */
  public JsonObject tlsConf(String host) throws IOException {
    if (!Files.exists(node(host))) {
      run(Map.of(), host);
    }
    return new JsonObject().put("certFile", node(host).toString()).put("keyFile", nodeKey(host).toString())
        .put("caFile", ca().toString());
  }

  /** A client that trusts the cluster CA and shows 127.0.0.1's node certificate, as a peer would (internal endpoints let it in). */
  public synchronized HttpClient client() {
    if (client == null) {
      client = clientWith(node("127.0.0.1"), nodeKey("127.0.0.1"));
    }
    return client;
  }

  /** A client that trusts the cluster CA and shows this certificate (null for none). */
  public HttpClient clientWith(Path cert, Path key) {
    try {
      SSLContext context = PemSslContext.of(ca(), cert, key);
      return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
          .sslContext(context).build();
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new AssertionError("cannot build a TLS client from " + dir + ": " + e, e);
    }
  }
}
