package io.quorumkv.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS for the node's HTTP port: the API, the admin endpoints and the traffic between nodes. Files
 * are PEM; they are read again when they change ({@code reloadCheckMs}) or on {@code SIGHUP}.
 *
 * @param certFile      this node's certificate chain: served to clients and peers, and shown to
 *                      peers as its client certificate
 * @param keyFile       its private key, PKCS#8 PEM ({@code BEGIN PRIVATE KEY}, as scripts/make-certs.sh writes)
 * @param caFile        the cluster's CA: a peer's certificate must chain to it (mutual TLS between
 *                      nodes), and this node checks the peers it calls against it; null only for a
 *                      single node
 * @param clientCaFile  when set, every client must present a certificate from this CA (or a node's);
 *                      null lets clients connect without one
 * @param plainPort     a second port serving the same API over plain HTTP, on the node's host; 0 for none
 * @param reloadCheckMs how often the files are checked for changes; 0 for only on {@code SIGHUP}
 */
public record TlsConfig(Path certFile, Path keyFile, Path caFile, Path clientCaFile, int plainPort,
                        long reloadCheckMs) {
  public static final long DEFAULT_RELOAD_CHECK_MS = 10_000;
  private static final long MAX_RELOAD_CHECK_MS = 86_400_000L;

  static TlsConfig parse(JsonSection section, NodeUrl url, int clusterSize) {
    TlsConfig tls = new TlsConfig(file(section, "certFile", true), file(section, "keyFile", true),
        file(section, "caFile", false), file(section, "clientCaFile", false),
        (int) section.nonNegativeLong("plainPort", 0, 65_535),
        section.nonNegativeLong("reloadCheckMs", DEFAULT_RELOAD_CHECK_MS, MAX_RELOAD_CHECK_MS));
    if (!url.secure()) {
      throw new ConfigException("'tls' needs an https url, not " + url);
    }
    if (tls.caFile == null && clusterSize > 1) {
      throw new ConfigException("'tls.caFile' (the cluster's CA) is required when 'cluster' has more than one node");
    }
    if (tls.plainPort != 0 && tls.plainPort == url.port()) {
      throw new ConfigException("'tls.plainPort' " + tls.plainPort + " is the url's own port");
    }
    return tls;
  }

  private static Path file(JsonSection section, String key, boolean required) {
    String name = required ? section.requiredString(key) : section.string(key, null);
    if (name == null) {
      return null;
    }
    Path path = Path.of(name);
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new ConfigException("'" + section.path(key) + "': " + name + " is not a readable file");
    }
    return path;
  }
}
