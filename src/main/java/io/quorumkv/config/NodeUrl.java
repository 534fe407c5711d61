package io.quorumkv.config;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * A node's address, {@code http://host:port} or {@code https://host:port}, normalised so that
 * equal nodes compare equal. A node is its host and port: the scheme says how to reach it, so
 * turning TLS on keeps every node's identity (and the placement of every key).
 */
public record NodeUrl(String host, int port, boolean secure) {

  /** A node reached over plain HTTP. */
  public NodeUrl(String host, int port) {
    this(host, port, false);
  }

  public static NodeUrl parse(String key, String text) {
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(key + ": '" + text + "' is not a url");
    }
    boolean secure = "https".equals(uri.getScheme());
    if (!secure && !"http".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new ConfigException(key + ": '" + text + "' must look like http://host:port or https://host:port");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null) {
      throw new ConfigException(key + ": '" + text + "' must not have a path or query");
    }
    int port = uri.getPort() == -1 ? (secure ? 443 : 80) : uri.getPort();
    if (port > 65535) {
      throw new ConfigException(key + ": port " + port + " is out of range");
    }
    return new NodeUrl(uri.getHost(), port, secure);
  }

  /** The same node reached over TLS, or over plain HTTP. */
  public NodeUrl withScheme(boolean tls) {
    return tls == secure ? this : new NodeUrl(host, port, tls);
  }

  /** What placement hashes: the plain form whatever the scheme, as before TLS existed. */
  public String placementKey() {
    return "http://" + host + ":" + port;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NodeUrl node && node.port == port && node.host.equals(host);
  }

  @Override
  public int hashCode() {
    return host.hashCode() * 31 + port;
  }

  @Override
  public String toString() {
    return (secure ? "https://" : "http://") + host + ":" + port;
  }
}
