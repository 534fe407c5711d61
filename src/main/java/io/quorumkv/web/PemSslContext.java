package io.quorumkv.web;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

/**
 * An {@link SSLContext} for the JDK's HTTP client from PEM files, as the nodes use them: the CA to
 * trust and, when the node asks for one, a client certificate with its PKCS#8 key (EC or RSA).
 */
public final class PemSslContext {
  private static final char[] NO_PASSWORD = new char[0];

  private PemSslContext() {
  }

  /**
   * @param caFile   the CA the server's certificate must chain to, null for the JDK's own
   * @param certFile the client certificate chain to show, null for none
   * @param keyFile  its key, null for none
   */
  public static SSLContext of(Path caFile, Path certFile, Path keyFile) throws IOException, GeneralSecurityException {
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    if (caFile == null) {
      trust.init((KeyStore) null);
    } else {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int index = 0;
      for (Certificate ca : certificates(caFile)) {
        trusted.setCertificateEntry("ca-" + index++, ca);
      }
      trust.init(trusted);
    }
    KeyManagerFactory keys = null;
    if (certFile != null) {
      KeyStore own = KeyStore.getInstance(KeyStore.getDefaultType());
      own.load(null, null);
      own.setKeyEntry("client", privateKey(keyFile), NO_PASSWORD, certificates(certFile).toArray(Certificate[]::new));
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(own, NO_PASSWORD);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  private static Collection<? extends Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new GeneralSecurityException(file + " holds no certificate");
      }
      return certificates;
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw new GeneralSecurityException(file + " is not a PKCS#8 PEM key (BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"EC", "RSA"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException wrongAlgorithm) {
        // try the next
      }
    }
    throw new GeneralSecurityException(file + " holds neither an EC nor an RSA key");
  }
}
