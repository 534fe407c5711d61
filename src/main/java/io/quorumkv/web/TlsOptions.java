package io.quorumkv.web;

import io.quorumkv.config.TlsConfig;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ServerSSLOptions;

import java.nio.file.Path;
import java.util.Set;

/**
 * The TLS settings of a node's server and its clients to other nodes, from the conf's
 * {@code tls} section: TLS 1.3 and 1.2 only, the node's own certificate on both sides,
 * peers checked against the cluster's CA. Vert.x reads the PEM files when it builds a context
 * (off the event loops), so new options read them again; the Netty contexts themselves are the
 * node's {@link NodeSslContexts}, built once off the event loops.
 */
public final class TlsOptions {
  /** TLS 1.0 and 1.1 are deprecated (RFC 8996). */
  public static final Set<String> PROTOCOLS = Set.of("TLSv1.3", "TLSv1.2");

  private TlsOptions() {
  }

  /** The node's port: its certificate, and the client certificates it asks for. */
  public static HttpServerOptions secure(HttpServerOptions options, TlsConfig tls) {
    options.setSsl(true).setKeyCertOptions(ownCertificate(tls)).setEnabledSecureTransportProtocols(PROTOCOLS)
        .setClientAuth(clientAuth(tls)).setTrustOptions(trusted(tls.caFile(), tls.clientCaFile()))
        .setSslEngineOptions(NodeSslContexts.of(tls).engine());
    return options;
  }

  /** The same as {@link #secure(HttpServerOptions, TlsConfig)}, to replace a running server's (on reload). */
  public static ServerSSLOptions serverSsl(TlsConfig tls) {
    return secure(new HttpServerOptions(), tls).getSslOptions().copy();
  }

  /**
   * A client to other nodes: TLS, the peer's certificate checked against the cluster's CA and its
   * address, and this node's certificate shown as its own.
   */
  public static HttpClientOptions secure(HttpClientOptions options, TlsConfig tls) {
    options.setSsl(true).setVerifyHost(true).setKeyCertOptions(ownCertificate(tls))
        .setEnabledSecureTransportProtocols(PROTOCOLS).setTrustOptions(trusted(tls.caFile()))
        .setSslEngineOptions(NodeSslContexts.of(tls).engine());
    return options;
  }

  static PemKeyCertOptions ownCertificate(TlsConfig tls) {
    return new PemKeyCertOptions().setCertPath(tls.certFile().toString()).setKeyPath(tls.keyFile().toString());
  }

  /**
   * Clients must show a certificate when the conf names their CA; otherwise one is asked for (a
   * peer shows its own) but a client may come without.
   */
  private static ClientAuth clientAuth(TlsConfig tls) {
    if (tls.clientCaFile() != null) {
      return ClientAuth.REQUIRED;
    }
    return tls.caFile() != null ? ClientAuth.REQUEST : ClientAuth.NONE;
  }

  /** {@link #clientAuth} as Netty names it. */
  static io.netty.handler.ssl.ClientAuth nettyClientAuth(TlsConfig tls) {
    return switch (clientAuth(tls)) {
      case REQUIRED -> io.netty.handler.ssl.ClientAuth.REQUIRE;
      case REQUEST -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
      case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
    };
  }

  /** The CAs of these files (null ones left out); null, the JDK's default trust, when there is none. */
  static PemTrustOptions trusted(Path... cas) {
    PemTrustOptions trusted = null;
    for (Path ca : cas) {
      if (ca != null) {
        trusted = (trusted == null ? new PemTrustOptions() : trusted).addCertPath(ca.toString());
      }
    }
    return trusted;
  }
}
