package io.quorumkv.web;

import io.vertx.core.http.HttpClientOptions;

import java.net.URI;
import java.util.Set;

/**
 * How a command-line tool gets into a node, the options every load tool takes alike: TLS
 * ({@code --cacert}, {@code --cert}, {@code --key}: {@link ClientTls}) and an API token
 * ({@code --token}, sent as {@code Authorization: Bearer}).
 */
public record NodeAccess(ClientTls tls, String token) {
  public static final NodeAccess NONE = new NodeAccess(ClientTls.NONE, null);
  private static final Set<String> OPTIONS = Set.of("--cacert", "--cert", "--key", "--token");

  /** The options' lines of a tool's usage text, each ending with a newline. */
  public static final String USAGE = """
        --cacert FILE      the CA an https node's certificate must chain to (default: the JDK's)
        --cert F --key F   a client certificate and its key, for a node that asks for one
        --token TOKEN      sent as Authorization: Bearer TOKEN on every request, for a node whose conf
                           sets API tokens (write for PUT and DELETE, read for the rest)
      """;

  /** Whether {@code option} is one of these (each takes a value). */
  public static boolean takes(String option) {
    return OPTIONS.contains(option);
  }

  /** A copy with {@code option} set to {@code value}. */
  public NodeAccess with(String option, String value) {
    return "--token".equals(option) ? new NodeAccess(tls, value.strip()) : new NodeAccess(tls.with(option, value), token);
  }

  /** Refuses a certificate without its key or the other way round. */
  public NodeAccess checked() {
    tls.checked();
    return this;
  }

  /** The {@code Authorization} header's value, null without a token. */
  public String authorization() {
    return token == null ? null : "Bearer " + token;
  }

  /** A Vert.x client to {@code url}'s host and port, over TLS for an https url. */
  public HttpClientOptions clientTo(URI url, HttpClientOptions options) {
    options.setDefaultHost(url.getHost()).setDefaultPort(url.getPort());
    return "https".equalsIgnoreCase(url.getScheme()) ? tls.secure(options) : options;
  }
}
