package io.quorumkv.peer;

import io.quorumkv.config.NodeConfig;
import io.quorumkv.web.TlsOptions;
import io.vertx.ext.web.client.WebClientOptions;

/** How {@link PeerClient} connects to other nodes, whatever it carries. */
final class PeerClientOptions {
  private PeerClientOptions() {
  }

  /**
   * Keep-alive connections without Nagle's delay, opened from the node's own address so traffic
   * between two nodes on one host tells who sent it, failing to connect after {@code connectTimeoutMs};
   * under TLS with the node's certificate as its own (mutual TLS).
   */
  static WebClientOptions from(NodeConfig config, long connectTimeoutMs) {
    WebClientOptions options = new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true)
        .setConnectTimeout((int) Math.min(connectTimeoutMs, Integer.MAX_VALUE)).setUserAgentEnabled(false)
        .setLocalAddress(config.url().host());
    if (config.tls() != null) {
      TlsOptions.secure(options, config.tls());
    }
    return options;
  }
}
