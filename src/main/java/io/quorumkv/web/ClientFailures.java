package io.quorumkv.web;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateExpiredException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * What a command-line tool says when an exchange with a node went wrong, in one line: a request that
 * got no answer ({@link #describe}, from the failure of the JDK's or Vert.x's HTTP client) or an answer
 * the tool did not want ({@link #answer}). A failure is first put in a {@link Kind} without touching the
 * network ({@link #kindOf}, cheap enough to count failures by); {@link #describe} may then look at the
 * node once more (a TLS handshake that sends no request) to tell an https node from a server that only
 * closed the connection, and to name a certificate that is not trusted.
 */
public final class ClientFailures {
  private static final int PROBE_TIMEOUT_MS = 3_000;
  private static final int MAX_BODY_CHARS = 160;
  private static final String CLIENT_CERTIFICATE_REFUSED_LINE = "the node at %s refused this client's certificate"
      + " (or its absence): give one its clients' CA issued with --cert and --key";

  /** Why a request got no answer. */
  public enum Kind {
    /** Nothing listens there. */
    REFUSED("connection refused"),
    /** The host name does not resolve. */
    UNKNOWN_HOST("unknown host"),
    /** No answer in time (connecting or waiting). */
    TIMEOUT("timeout"),
    /** The connection closed before an answer came: an http:// url to a TLS node looks like this. */
    CLOSED("connection closed"),
    /** The node's certificate does not chain to a trusted CA (or is expired, or names another host). */
    CERTIFICATE_NOT_TRUSTED("certificate not trusted"),
    /** The node refused the client's certificate, or its absence. */
    CLIENT_CERTIFICATE_REFUSED("client certificate refused"),
    /** An https:// url to a node that speaks plain HTTP. */
    NOT_TLS("not TLS"),
    /** Any other TLS failure. */
    TLS("TLS failure"),
    /** Anything else. */
    OTHER("other failure");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** A short name for counts in a report ({@code "certificate not trusted"}). */
    public String label() {
      return label;
    }

    public boolean isTls() {
      return this == CERTIFICATE_NOT_TRUSTED || this == CLIENT_CERTIFICATE_REFUSED || this == NOT_TLS || this == TLS;
    }
  }

  private ClientFailures() {
  }

  /** The kind of a failed exchange, from its exception and causes alone. */
  public static Kind kindOf(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
      String type = cause.getClass().getSimpleName();
      if (type.equals("NotSslRecordException") || message.contains("plaintext connection")) {
        return Kind.NOT_TLS;
      }
      if (cause instanceof SSLException && (message.contains("bad_certificate") || message.contains("certificate_required")
          || message.contains("unknown_ca") || message.contains("certificate_unknown"))) {
        return Kind.CLIENT_CERTIFICATE_REFUSED;
      }
      if (message.contains("pkix path") || message.contains("unable to find valid certification path")
          || cause instanceof CertificateExpiredException || message.contains("no subject alternative")
          || message.contains("no name matching")) {
        return Kind.CERTIFICATE_NOT_TRUSTED;
      }
      if (cause instanceof UnknownHostException || cause instanceof UnresolvedAddressException) {
        return Kind.UNKNOWN_HOST;
      }
      if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException
          || type.contains("Timeout") || message.contains("timed out") || message.contains("timeout of")) {
        return Kind.TIMEOUT;
      }
      if (message.contains("connection refused")) {
        return Kind.REFUSED;
      }
    }
    Throwable root = rootOf(failure);
    if (failure instanceof SSLException || root instanceof SSLException) {
      return Kind.TLS;
    }
    // The JDK's client says only ConnectException (no message) for a refused connection.
    if (failure instanceof ConnectException || root instanceof ConnectException) {
      return Kind.REFUSED;
    }
    String message = String.valueOf(failure.getMessage()).toLowerCase(Locale.ROOT);
    if (failure.getClass().getSimpleName().equals("HttpClosedException") || root instanceof EOFException
        || message.contains("connection was closed") || message.contains("received no bytes")
        || message.contains("connection reset")) {
      return Kind.CLOSED;
    }
    return Kind.OTHER;
  }

  /**
   * One line for a request to {@code url} that got no answer, such as {@code "the node at
   * http://127.0.0.1:8443 speaks TLS: use https://127.0.0.1:8443"}. Blocking (it may open a connection
   * to the url for a few seconds): call it from a tool's own thread, never an event loop.
   */
  public static String describe(URI url, Throwable failure) {
    String node = origin(url);
    Kind kind = kindOf(failure);
    boolean https = "https".equalsIgnoreCase(url.getScheme());
    return switch (kind) {
      case REFUSED -> "no node at " + node + " (connection refused)";
      case UNKNOWN_HOST -> "no node at " + node + " (unknown host " + url.getHost() + ")";
      case NOT_TLS -> "the node at " + node + " does not speak TLS: use " + node.replaceFirst("^https", "http");
      case CLIENT_CERTIFICATE_REFUSED -> CLIENT_CERTIFICATE_REFUSED_LINE.formatted(node);
      case CERTIFICATE_NOT_TRUSTED -> "the certificate of " + node + " is not trusted: " + untrusted(url, failure);
      case TIMEOUT, CLOSED -> closedOrTimedOut(url, node, kind, https);
      case TLS -> "TLS with " + node + " failed: " + messageOf(rootOf(failure));
      case OTHER -> "cannot reach " + node + ": " + messageOf(rootOf(failure));
    };
  }

  /**
   * A connection that closed or timed out: over http, a TLS node's refusal of plaintext; over https,
   * under TLS 1.3, often a node that wanted a client certificate (its alert can come after the
   * client's side of the handshake ended, as a plain close).
   */
  private static String closedOrTimedOut(URI url, String node, Kind kind, boolean https) {
    Handshake handshake = handshake(url);
    if (!https && handshake != null) {
      return "the node at " + node + " speaks TLS: use " + node.replaceFirst("^http", "https");
    }
    if (https && handshake != null && handshake.clientCertificateAsked()) {
      return CLIENT_CERTIFICATE_REFUSED_LINE.formatted(node);
    }
    return kind == Kind.TIMEOUT ? "no answer from " + node + " in time (timeout)"
        : "the connection to " + node + " closed before an answer";
  }

  /**
   * One line for an answer the tool did not want: the status and what the node said in its short body
   * ({@code "401 unknown token"}, {@code "403 token role read, write needed"}); a body that is no short
   * text (an HTML page, say) is left out.
   */
  public static String answer(int status, String body) {
    String text = body == null ? "" : body.strip();
    int newline = text.indexOf('\n');
    String firstLine = newline < 0 ? text : text.substring(0, newline).strip();
    if (firstLine.isEmpty() || firstLine.startsWith("<") || firstLine.startsWith("{")) {
      return status + " " + reason(status);
    }
    return status + " " + (firstLine.length() > MAX_BODY_CHARS ? firstLine.substring(0, MAX_BODY_CHARS) + "..." : firstLine);
  }

  private static String reason(int status) {
    return switch (status) {
      case 400 -> "bad request";
      case 401 -> "no token, or one the node does not know";
      case 403 -> "the token's role is too weak";
      case 404 -> "not found";
      case 405 -> "method not allowed";
      case 429 -> "too many requests";
      case 500 -> "internal error";
      case 502 -> "bad gateway";
      case 503 -> "overloaded or unavailable";
      case 504 -> "not enough replicas, or a gateway timeout";
      default -> "(no text)";
    };
  }

  /** Why the node's certificate is not trusted, naming it when a handshake that trusts anything can see it. */
  private static String untrusted(URI url, Throwable failure) {
    String reason = rootOf(failure) instanceof CertificateExpiredException || String.valueOf(messageOf(rootOf(failure)))
        .contains("expired") ? "it has expired" : null;
    String lower = messageOf(rootOf(failure)).toLowerCase(Locale.ROOT);
    if (lower.contains("no subject alternative") || lower.contains("no name matching")) {
      reason = "it does not name " + url.getHost();
    }
    X509Certificate[] chain = speaksTls(url);
    String names = chain == null || chain.length == 0 ? ""
        : chain[0].getSubjectX500Principal().getName() + ", issued by " + chain[0].getIssuerX500Principal().getName();
    if (reason == null) {
      reason = "no trusted CA issued it (give its CA with --cacert)";
    }
    return names.isEmpty() ? reason : names + ": " + reason;
  }

  /** The certificate chain a TLS handshake with {@code url}'s host and port shows; null when it speaks no TLS. */
  static X509Certificate[] speaksTls(URI url) {
    Handshake handshake = handshake(url);
    return handshake == null ? null : handshake.chain();
  }

  /**
   * What a handshake with {@code url}'s host and port shows: the server's chain, and whether it asked
   * for a client certificate (none is given); null when it speaks no TLS.
   */
  private static Handshake handshake(URI url) {
    int port = url.getPort() > 0 ? url.getPort() : ("https".equalsIgnoreCase(url.getScheme()) ? 443 : 80);
    X509Certificate[][] seen = new X509Certificate[1][];
    boolean[] asked = new boolean[1];
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(url.getHost(), port), PROBE_TIMEOUT_MS);
      plain.setSoTimeout(PROBE_TIMEOUT_MS);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {new NoClientCertificate(asked)}, new TrustManager[] {new Recording(seen)}, null);
      try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, url.getHost(), port, false)) {
        tls.startHandshake();
      }
      return new Handshake(seen[0], asked[0]);
    } catch (SSLException e) {
      // The server spoke TLS far enough to show its certificate, then refused (a client certificate it wants, say).
      return seen[0] == null && !asked[0] ? null : new Handshake(seen[0], asked[0]);
    } catch (IOException | GeneralSecurityException e) {
      return null;
    }
  }

  private record Handshake(X509Certificate[] chain, boolean clientCertificateAsked) {
  }

  /** Gives no client certificate, remembering whether the server asked for one. */
  private static final class NoClientCertificate extends X509ExtendedKeyManager {
    private final boolean[] asked;

    NoClientCertificate(boolean[] asked) {
      this.asked = asked;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      asked[0] = true;
      return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return null;
    }
  }

  /** Trusts every server, remembering the chain it showed; used only to look, never to send a request. */
  private record Recording(X509Certificate[][] seen) implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
      throw new UnsupportedOperationException("a client only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
      seen[0] = chain;
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  private static String origin(URI url) {
    return url.getScheme() + "://" + url.getHost() + (url.getPort() > 0 ? ":" + url.getPort() : "");
  }

  private static Throwable rootOf(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static String messageOf(Throwable failure) {
    String message = failure.getMessage();
    return message == null || message.isBlank() ? failure.getClass().getSimpleName() : message.strip();
  }
}
