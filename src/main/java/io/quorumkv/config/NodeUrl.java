package io.quorumkv.config;

import java.net.URI;
import java.net.URISyntaxException;

/** A node's HTTP address, {@code http://host:port}, normalised so that equal nodes compare equal. */
public record NodeUrl(String host, int port) {

  public static NodeUrl parse(String key, String text) {
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(key + ": '" + text + "' is not a url");
    }
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new ConfigException(key + ": '" + text + "' must look like http://host:port");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null) {
      throw new ConfigException(key + ": '" + text + "' must not have a path or query");
    }
    int port = uri.getPort() == -1 ? 80 : uri.getPort();
    if (port > 65535) {
      throw new ConfigException(key + ": port " + port + " is out of range");
    }
    return new NodeUrl(uri.getHost(), port);
  }

  @Override
  public String toString() {
    return "http://" + host + ":" + port;
  }
}
