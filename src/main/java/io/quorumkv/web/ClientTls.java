package io.quorumkv.web;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;

/**
 * How a command-line tool reaches a node over https ({@code --cacert}, {@code --cert}, {@code --key},
 * as curl names them): the CA to trust (the JDK's own when none is given), and a client
 * certificate when the node asks for one.
 */
public record ClientTls(Path caFile, Path certFile, Path keyFile) {
  public static final ClientTls NONE = new ClientTls(null, null, null);

  /** A copy with one of the three options ({@code --cacert}, {@code --cert}, {@code --key}) set to {@code value}. */
  public ClientTls with(String option, String value) {
    Path path = Path.of(value);
    return switch (option) {
      case "--cacert" -> new ClientTls(path, certFile, keyFile);
      case "--cert" -> new ClientTls(caFile, path, keyFile);
      case "--key" -> new ClientTls(caFile, certFile, path);
      default -> throw new IllegalArgumentException("unknown option " + option);
    };
  }

  /** Refuses a certificate without its key or the other way round. */
  public ClientTls checked() {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("--cert and --key go together");
    }
    return this;
  }

  /** A Vert.x client to an https node: TLS on, the CA trusted, the certificate shown. */
  public HttpClientOptions secure(HttpClientOptions options) {
    options.setSsl(true).setVerifyHost(true).setEnabledSecureTransportProtocols(TlsOptions.PROTOCOLS);
    if (caFile != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(caFile.toString()));
    }
    if (certFile != null) {
      options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(certFile.toString())
          .setKeyPath(keyFile.toString()));
    }
    return options;
  }

  /** For the JDK's HTTP client; reads the files. */
  public SSLContext sslContext() {
    try {
      return caFile == null && certFile == null ? SSLContext.getDefault()
          : PemSslContext.of(caFile, certFile, keyFile);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("unusable TLS files: " + e.getMessage(), e);
    }
  }
}
