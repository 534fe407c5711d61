package io.quorumkv.peer;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.config.TlsConfig;
import io.vertx.core.http.HttpConnection;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Tells a connection from another node of the cluster, under TLS: it showed a certificate the
 * handshake verified, issued by the cluster's CA, that names a node. Only the chain's leaf counts,
 * the certificate whose key the peer proved it holds: when the node also trusts a CA for clients,
 * a certificate from that CA passes the handshake too, so the leaf's issuer is checked here; a CA
 * certificate never counts as a node's; and one of the leaf's subject alternative names (DNS or
 * IP) must be the host of a node of the topology in force, so that a certificate the cluster's CA
 * issued to anything else is no node's either. A yes is kept for the TLS session; a no is asked
 * again, as the topology may have gained the node since. Without TLS every connection passes: the
 * cluster secret is then the only check.
 */
public final class PeerCertificates {
  private static final String VERDICT = "quorumkv.clusterPeer";

  private static final int SAN_DNS = 2;
  private static final int SAN_IP = 7;

  private final boolean tls;
  /** The cluster CA's keys when another CA is trusted too; empty when the handshake's trust is the cluster CA alone. */
  private final List<PublicKey> clusterCas;
  /** The nodes of the topology in force, or null until the node has one (then any name counts). */
  private volatile Supplier<Collection<NodeUrl>> nodes;

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

  /** Where the nodes a peer's certificate must name come from: the topology in force (null until there is one). */
  public void acceptNodesOf(Supplier<Collection<NodeUrl>> nodes) {
    this.nodes = nodes;
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
    if (Boolean.TRUE.equals(session.getValue(VERDICT))) {
      return true;
    }
    boolean verdict = aNodesCertificate(session);
    if (verdict) {
      session.putValue(VERDICT, true);
    }
    return verdict;
  }

  private boolean aNodesCertificate(SSLSession session) {
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
    if (chain.length == 0) {
      return false;
    }
    // The leaf alone: it is the certificate whose key the peer proved it holds. The rest of the chain
    // is whatever the peer chose to send, and a client holds the cluster CA's certificate too.
    if (!(chain[0] instanceof X509Certificate leaf) || leaf.getBasicConstraints() != -1) {
      return false;
    }
    return issuedByTheClusterCa(leaf) && namesANode(leaf);
  }

  /** Verified by the handshake already when the cluster CA is the only one trusted. */
  private boolean issuedByTheClusterCa(X509Certificate leaf) {
    if (clusterCas.isEmpty()) {
      return true;
    }
    for (PublicKey ca : clusterCas) {
      if (signedBy(leaf, ca)) {
        return true;
      }
    }
    return false;
  }

  private boolean namesANode(X509Certificate leaf) {
    Supplier<Collection<NodeUrl>> source = nodes;
    Collection<NodeUrl> members = source == null ? null : source.get();
    if (members == null) {
      return true;
    }
    Collection<List<?>> names;
    try {
      names = leaf.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return false;
    }
    if (names == null) {
      return false;
    }
    for (List<?> name : names) {
      Object type = name.get(0);
      if ((Integer.valueOf(SAN_DNS).equals(type) || Integer.valueOf(SAN_IP).equals(type))
          && name.get(1) instanceof String value && members.stream().anyMatch(node -> sameHost(node.host(), value))) {
        return true;
      }
    }
    return false;
  }

  /** A DNS name compared without case; an IP address as an address, whatever its text (IPv6 has several). */
  private static boolean sameHost(String host, String name) {
    String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (bare.equalsIgnoreCase(name)) {
      return true;
    }
    if (!isIpLiteral(bare) || !isIpLiteral(name)) {
      return false;
    }
    try {
      // Literals only: no name is looked up.
      return InetAddress.getByName(bare).equals(InetAddress.getByName(name));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isIpLiteral(String text) {
    return text.contains(":") || text.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
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
