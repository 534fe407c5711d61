package io.quorumkv.cli;

import io.quorumkv.web.ClientTls;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The options every subcommand reads alike, wherever they stand after its name: the nodes to ask
 * ({@code --url}, repeated or comma-separated, tried in order; default {@code QKV_URL} or
 * {@code http://127.0.0.1:8080}), the token ({@code --token}, default {@code QKV_TOKEN}), the TLS
 * files ({@code --cacert}, {@code --cert}, {@code --key}) and {@code --json}. What is left is the
 * subcommand's own.
 */
record AdminOptions(List<URI> urls, String token, ClientTls tls, boolean json, List<String> rest) {
  static final String DEFAULT_URL = "http://127.0.0.1:8080";
  static final String USAGE = """
      common options:
        --url URL          a node to ask; repeat it (or separate urls with commas) to fail over to the next
                           when one cannot be reached (default: $QKV_URL, else %s)
        --token TOKEN      the API token to send (default: $QKV_TOKEN)
        --cacert FILE      the CA an https node's certificate must chain to (default: the JDK's)
        --cert F --key F   a client certificate and its key, for a node that asks for one
        --json             JSON for scripts instead of a table""".formatted(DEFAULT_URL);

  static AdminOptions parse(List<String> args, Map<String, String> environment) {
    List<URI> urls = new ArrayList<>();
    String token = blankToNull(environment.get("QKV_TOKEN"));
    ClientTls tls = ClientTls.NONE;
    boolean json = false;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--json" -> json = true;
        case "--url", "--token", "--cacert", "--cert", "--key" -> {
          if (i + 1 == args.size()) {
            throw new IllegalArgumentException(arg + " needs a value");
          }
          String value = args.get(++i);
          switch (arg) {
            case "--url" -> urls.addAll(urlsIn(value));
            case "--token" -> token = blankToNull(value);
            default -> tls = tls.with(arg, value);
          }
        }
        default -> rest.add(arg);
      }
    }
    if (urls.isEmpty()) {
      String fromEnvironment = blankToNull(environment.get("QKV_URL"));
      urls.addAll(urlsIn(fromEnvironment == null ? DEFAULT_URL : fromEnvironment));
    }
    return new AdminOptions(List.copyOf(urls), token, tls.checked(), json, List.copyOf(rest));
  }

  /** The urls of one {@code --url} value: one, or several separated by commas. */
  private static List<URI> urlsIn(String value) {
    List<URI> urls = new ArrayList<>();
    for (String part : value.split(",")) {
      urls.add(nodeUrl(part.strip()));
    }
    return urls;
  }

  static URI nodeUrl(String text) {
    String trimmed = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    URI uri;
    try {
      uri = URI.create(trimmed);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a URL: '" + text + "'");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null
        || uri.getPort() == -1 && uri.getRawPath() != null && !uri.getRawPath().isEmpty()) {
      throw new IllegalArgumentException("a node's url is http://HOST:PORT or https://HOST:PORT, got '" + text + "'");
    }
    return uri;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
