package io.quorumkv.peer;

import io.quorumkv.config.TlsConfig;
import io.vertx.core.http.HttpConnection;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells a connection from another node of the cluster, under TLS: it showed a certificate the
 * handshake verified, issued by the cluster's CA. When the node also trusts a CA for clients, a
 * certificate from that CA passes the handshake too, so the issuer of the peer's own certificate,
 * the chain's leaf, is checked here (once per TLS session); a CA certificate never counts as a
 * node's. Without TLS every connection passes: the cluster secret is then the only check.
 */
public final class PeerCertificates {
  private static final String VERDICT = "quorumkv.clusterPeer";

  private final boolean tls;
  /** The cluster CA's keys when another CA is trusted too; empty when the handshake's trust is the cluster CA alone. */
  private final List<PublicKey> clusterCas;

  private PeerCertificates(boolean tls, List<PublicKey> clusterCas) {
    this.tls = tls;
    this.clusterCas = clusterCas;
  }

  /** For a node without TLS: every connection passes. */
  public static PeerCertificates none() {
    return new PeerCertificates(false, List.of());
  }

  /** Reads the cluster's CA from the conf's file when clients' certificates come from another; blocking. */
  public static PeerCertificates load(TlsConfig tls) throws IOException, GeneralSecurityException {
    if (tls.clientCaFile() == null || tls.caFile() == null) {
      return new PeerCertificates(true, List.of());
    }
    List<PublicKey> keys = new ArrayList<>();
    try (InputStream in = Files.newInputStream(tls.caFile())) {
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        keys.add(ca.getPublicKey());
      }
    }
    if (keys.isEmpty()) {
      throw new GeneralSecurityException(tls.caFile() + " holds no certificate");
    }
    return new PeerCertificates(true, List.copyOf(keys));
  }

  /** Whether requests on this connection may be a peer's. */
  public boolean isClusterPeer(HttpConnection connection) {
    if (!tls) {
      return true;
    }
    SSLSession session = connection.sslSession();
    if (session == null) {
      return false;
    }
    Object known = session.getValue(VERDICT);
    if (known instanceof Boolean verdict) {
      return verdict;
    }
    boolean verdict = issuedByTheClusterCa(session);
    session.putValue(VERDICT, verdict);
    return verdict;
  }

  private boolean issuedByTheClusterCa(SSLSession session) {
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
    if (chain.length == 0) {
      return false;
    }
    if (clusterCas.isEmpty()) {
      return true;
    }
    // The leaf alone: it is the certificate whose key the peer proved it holds. The rest of the chain
    // is whatever the peer chose to send, and a client holds the cluster CA's certificate too.
    if (!(chain[0] instanceof X509Certificate leaf) || leaf.getBasicConstraints() != -1) {
      return false;
    }
    for (PublicKey ca : clusterCas) {
      if (signedBy(leaf, ca)) {
        return true;
      }
    }
    return false;
  }

  private static boolean signedBy(X509Certificate certificate, PublicKey ca) {
    try {
      certificate.verify(ca);
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
