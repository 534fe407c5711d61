package io.quorumkv.web;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.quorumkv.config.TlsConfig;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.spi.tls.DefaultSslContextFactory;
import io.vertx.core.spi.tls.SslContextFactory;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node's two Netty SSL contexts (its servers' and its clients' to other nodes), built from the conf's
 * TLS files once, off the event loops ({@link #load}), and shared by every server and client of the
 * node. Left to itself, Vert.x builds a context for each server and each client on the first
 * connection, on its event loop: with one server and several peer clients per loop, a node under
 * TLS held its event loops for seconds at start.
 *
 * <p>Vert.x still reads the PEM files for each server and client (off the loops) and checks them on a
 * reload; only the context it would build from them is this one. Before {@link #load} has run, the
 * engine builds as Vert.x would.
 */
public final class NodeSslContexts {
  private static final Map<TlsConfig, NodeSslContexts> BY_CONF = new ConcurrentHashMap<>();

  private final TlsConfig tls;
  private volatile Built built;
  private final AtomicLong builtOnEventLoops = new AtomicLong();
  private final AtomicLong handedOut = new AtomicLong();

  private record Built(SslContext server, SslContext client) {
  }

  private NodeSslContexts(TlsConfig tls) {
    this.tls = tls;
  }

  /** The contexts of the nodes with this TLS conf (one per distinct conf in the JVM). */
  public static NodeSslContexts of(TlsConfig tls) {
    return BY_CONF.computeIfAbsent(tls, NodeSslContexts::new);
  }

  /** Builds both contexts from the files, again on a reload; blocking: call it on a worker thread. */
  public void load(Vertx vertx) throws Exception {
    KeyManagerFactory own = TlsOptions.ownCertificate(tls).getKeyManagerFactory(vertx);
    checkKeyMatchesCertificate(own);
    PemTrustOptions serverTrust = TlsOptions.trusted(tls.caFile(), tls.clientCaFile());
    PemTrustOptions clientTrust = TlsOptions.trusted(tls.caFile());
    SslContext server = jdkContext(false, own, serverTrust == null ? null : serverTrust.getTrustManagerFactory(vertx))
        .clientAuth(TlsOptions.nettyClientAuth(tls)).create();
    SslContext client = jdkContext(true, own, clientTrust == null ? null : clientTrust.getTrustManagerFactory(vertx))
        .create();
    warmUp(server);
    warmUp(client);
    built = new Built(server, client);
  }

  /** Loads the classes of a connection's TLS handler here rather than on the first connection's event loop. */
  private static void warmUp(SslContext context) throws SSLException {
    SSLEngine engine = new SslHandler(context.newEngine(UnpooledByteBufAllocator.DEFAULT)).engine();
    engine.closeOutbound();
    engine.closeInbound();
  }

  /** A key that does not sign for its certificate would fail every handshake: refused here instead. */
  private void checkKeyMatchesCertificate(KeyManagerFactory keys) throws GeneralSecurityException {
    for (KeyManager manager : keys.getKeyManagers()) {
      if (manager instanceof X509KeyManager x509) {
        for (String type : new String[] {"EC", "RSA"}) {
          String[] aliases = x509.getServerAliases(type, null);
          if (aliases == null) {
            continue;
          }
          for (String alias : aliases) {
            PrivateKey key = x509.getPrivateKey(alias);
            X509Certificate[] chain = x509.getCertificateChain(alias);
            String algorithm = "EC".equals(type) ? "SHA256withECDSA" : "SHA256withRSA";
            byte[] probe = "quorumkv".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(chain[0].getPublicKey());
            verifier.update(probe);
            if (!verifier.verify(signature)) {
              throw new GeneralSecurityException(tls.keyFile() + " is not the key of " + tls.certFile());
            }
          }
        }
      }
    }
  }

  /** The engine options that hand these contexts to a server or a client. */
  JdkSSLEngineOptions engine() {
    return new Engine(this);
  }

  /** How many contexts were built on an event loop for lack of a {@link #load}: 0 once loaded first. */
  public long builtOnEventLoops() {
    return builtOnEventLoops.get();
  }

  /** How many times a server or a client took a loaded context. */
  public long handedOut() {
    return handedOut.get();
  }

  private static SslContextFactory jdkContext(boolean forClient, KeyManagerFactory keys, TrustManagerFactory trust) {
    return new DefaultSslContextFactory(SslProvider.JDK, false).forClient(forClient).keyMananagerFactory(keys)
        .trustManagerFactory(trust);
  }

  /** Vert.x's JDK engine, but its contexts are the node's loaded ones. */
  private static final class Engine extends JdkSSLEngineOptions {
    private final NodeSslContexts contexts;

    Engine(NodeSslContexts contexts) {
      this.contexts = contexts;
    }

    @Override
    public JdkSSLEngineOptions copy() {
      return new Engine(contexts);
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return new Factory(contexts);
    }
  }

  /** Takes what Vert.x asks for; answers with the loaded context of that side, or builds as Vert.x would. */
  private static final class Factory implements SslContextFactory {
    private final NodeSslContexts contexts;
    private final SslContextFactory fallback = new DefaultSslContextFactory(SslProvider.JDK, false);
    private boolean forClient;
    private boolean useAlpn;
    private String serverName;

    Factory(NodeSslContexts contexts) {
      this.contexts = contexts;
    }

    @Override
    public SslContextFactory useAlpn(boolean useAlpn) {
      this.useAlpn = useAlpn;
      fallback.useAlpn(useAlpn);
      return this;
    }

    @Override
    public SslContextFactory clientAuth(io.netty.handler.ssl.ClientAuth clientAuth) {
      fallback.clientAuth(clientAuth);
      return this;
    }

    @Override
    public SslContextFactory forClient(boolean forClient) {
      this.forClient = forClient;
      fallback.forClient(forClient);
      return this;
    }

    @Override
    public SslContextFactory keyMananagerFactory(KeyManagerFactory kmf) {
      fallback.keyMananagerFactory(kmf);
      return this;
    }

    @Override
    public SslContextFactory trustManagerFactory(TrustManagerFactory tmf) {
      fallback.trustManagerFactory(tmf);
      return this;
    }

    @Override
    public SslContextFactory enabledCipherSuites(Set<String> enabledCipherSuites) {
      fallback.enabledCipherSuites(enabledCipherSuites);
      return this;
    }

    @Override
    public SslContextFactory applicationProtocols(List<String> applicationProtocols) {
      fallback.applicationProtocols(applicationProtocols);
      return this;
    }

    @Override
    public SslContextFactory serverName(String serverName) {
      this.serverName = serverName;
      fallback.serverName(serverName);
      return this;
    }

    @Override
    public SslContext create() throws SSLException {
      Built built = contexts.built;
      // The loaded contexts are plain ones: no ALPN, no name of their own (SNI); nothing of the node asks for those.
      if (built != null && !useAlpn && serverName == null) {
        contexts.handedOut.incrementAndGet();
        return forClient ? built.client() : built.server();
      }
      if (Context.isOnEventLoopThread()) {
        contexts.builtOnEventLoops.incrementAndGet();
      }
      return fallback.create();
    }
  }
}
